// A user's program (run by test/live/streamed-recording.test.ts in a child process): the
// counter model of counter-model.ts run live on FsObjectStore, `rounds` times in a row on the
// same store (each round the two workers add 1), every round streamed to its own log
// (runLive's recordTo) with where the store started. Each GET and PUT takes `ioMs`, and
// `race` (a round number) makes that round's GETs slow enough that w2's read overtakes w1's
// write. It prints `round N` as each round starts, so the parent can kill it mid-round.
import { join } from 'node:path';
import { FsObjectStore, runLive } from 'interleave/live';
import { counter, counterBody } from './counter-model.ts';

const [dir, rounds, ioMs, race] = [process.argv[2]!, Number(process.argv[3] ?? 3), Number(process.argv[4] ?? 10), Number(process.argv[5] ?? -1)];
const store = new FsObjectStore(join(dir, 'objects'));
if ((await store.head('counter')).type !== 's3.head.ok') await store.put('counter', counterBody(0));
const sc = counter.build({ head: false, format: 'compact', start: 0 });
const first = Number(process.argv[6] ?? 1);
for (let r = first; r < first + rounds; r++) {
  process.stdout.write(`round ${r}\n`);
  const live = runLive(sc, {
    timeScale: 5,
    initial: { store: await store.snapshot() },
    recordTo: { path: join(dir, `round-${r}.log`), source: { module: new URL('./counter-model.ts', import.meta.url), export: 'counter' }, batchSteps: 1, fsyncMs: 0 },
    externals: {
      store: async (msg, from) => {
        await new Promise((res) => setTimeout(res, r === race && msg.type === 's3.get' ? 250 : ioMs));
        return store.handler(msg, from);
      },
    },
  });
  await live.whenQuiescent();
  await live.stop();
}
process.stdout.write('done\n');
