// Command line of examples/iterable-task.js.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startIterableTask } from './live.ts';

const USAGE = `usage: node examples/iterable-task.js --items N --db FILE [--concurrency W] [--per-index] [--work-ms MS] [--record trace.json] [--quiet]`;

export async function main(argv: string[]): Promise<number> {
  let a;
  try {
    a = parseArgs({
      args: argv,
      options: {
        items: { type: 'string', default: '5000' },
        db: { type: 'string', default: './state.db' },
        concurrency: { type: 'string', default: '16' },
        'per-index': { type: 'boolean', default: false },
        'work-ms': { type: 'string', default: '0' },
        record: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (a.help) {
    console.log(USAGE);
    return 0;
  }
  const n = Number(a.items);
  const w = Number(a.concurrency);
  const workMs = Number(a['work-ms']);
  if (!Number.isInteger(n) || n < 1) return usage(`--items must be a positive integer, got '${a.items}'`);
  if (!Number.isInteger(w) || w < 1) return usage(`--concurrency must be a positive integer, got '${a.concurrency}'`);
  if (!(workMs >= 0)) return usage(`--work-ms must be a number >= 0, got '${a['work-ms']}'`);
  const say = (s: string) => a.quiet || console.log(s);
  const t0 = performance.now();
  const task = startIterableTask({ n, w, db: a.db!, workMs, perIndex: a['per-index'], progressEvery: Math.max(w, Math.ceil(n / 20)), live: { record: a.record !== undefined } });
  say(`attempt ${task.attempt}: ${n} items, concurrency ${w}, ${a['per-index'] ? 'one checkpoint per index' : 'one checkpoint per round'}, state in ${a.db}`);
  task.system.events$.subscribe({
    next: (e) => {
      if (e.kind !== 'output') return;
      const m = e.msg;
      if (m.type === 'resumed') say(m.covered ? `resumed: ${m.covered} items covered by ${m.batches} durable checkpoint(s), ${m.todo} to run` : `fresh start: ${m.todo} to run`);
      if (m.type === 'progress') say(`progress ${m.done}/${m.n} (${Math.floor((100 * (m.done as number)) / (m.n as number))}%)`);
    },
    error: () => {},
  });
  let end;
  try {
    end = await task.finished;
  } catch (e) {
    console.error(`failed: ${(e as Error).message}`);
    await task.close();
    return 1;
  }
  const s = (performance.now() - t0) / 1000;
  if (a.record) {
    // Loaded only when asked for: the checker is not needed to run the task.
    const { liveTraceFile } = await import('../../src/check/from-trace.ts');
    writeFileSync(a.record, JSON.stringify(liveTraceFile(task.system.recording())));
    say(`recorded ${task.system.schedule().length} steps to ${a.record} (replay: interleave replay ${a.record})`);
  }
  await task.close();
  if (end.type === 'already-complete') say('already complete: the completion marker is present, nothing to do');
  else if (end.type === 'complete') say(`complete: ${n} items (${end.resumed} from checkpoints) in ${s.toFixed(2)} s, ${task.writes()} state-store writes`);
  else {
    console.error(`failed: ${String(end.why)}`);
    return 1;
  }
  return 0;
}

function usage(msg: string): number {
  console.error(`${msg}\n${USAGE}`);
  return 2;
}
