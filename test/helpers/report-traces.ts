// Trace files for the report and viewer tests, made by replaying a known
// counterexample of the lost-update demo (independent of the checker).
import { queryOf, replay, validateTraceFile, type RecordedEvent, type TraceFileData } from 'interleave';
import { toPlain } from 'interleave/kernel';
import { lostUpdate } from '../../src/machines/demo/lost-update.ts';

export const LOST_UPDATE_SCHEDULE = [
  'deliver:env->client1:start',
  'deliver:env->client2:start',
  'deliver:client1->store:Get',
  'deliver:client2->store:Get',
  'deliver:store->client1:Value',
  'deliver:store->client2:Value',
  'deliver:client1->store:Put',
  'deliver:client2->store:Put',
  'deliver:store->client1:Ok',
  'deliver:store->client2:Ok',
];

/** A passing neighbour: client2 reads after client1's write. */
export const LOST_UPDATE_PASSING = [
  'deliver:env->client1:start',
  'deliver:env->client2:start',
  'deliver:client1->store:Get',
  'deliver:store->client1:Value',
  'deliver:client1->store:Put',
  'deliver:client2->store:Get',
  'deliver:store->client1:Ok',
  'deliver:store->client2:Value',
  'deliver:client2->store:Put',
  'deliver:store->client2:Ok',
];

export function lostUpdateTrace(opts: { passing?: boolean } = {}): TraceFileData {
  const sc = lostUpdate('read-then-write', 2);
  const run = replay(sc, LOST_UPDATE_SCHEDULE);
  const verdict = (sc.invariants!['no-lost-update']!)(queryOf(sc, run.world));
  const pass = opts.passing ? replay(sc, LOST_UPDATE_PASSING) : undefined;
  return {
    schemaVersion: 1,
    kind: 'interleave-trace',
    tool: { name: 'interleave', version: '0.1.0' },
    scenario: { name: 'lost-update', params: { design: 'read-then-write', clients: 2 } },
    options: { strategy: 'dfs' },
    seed: 1,
    property: { name: 'no-lost-update', kind: 'invariant', message: typeof verdict === 'string' ? verdict : 'violated' },
    schedule: [...run.schedule],
    originalLength: 12,
    trace: toPlain(run.events) as TraceFileData['trace'],
    ...(pass ? { passing: { schedule: [...pass.schedule], trace: toPlain(pass.events) as TraceFileData['trace'] } } : {}),
  };
}

/** A run as a trace file with no violated property, read back through the validator (as `interleave show` reads one). */
export function runTraceFile(scenario: string, run: { readonly schedule: readonly string[]; readonly events: readonly RecordedEvent[] }): TraceFileData {
  const r = validateTraceFile(JSON.parse(JSON.stringify({
    schemaVersion: 1, kind: 'interleave-trace', tool: { name: 'interleave', version: 't' }, scenario: { name: scenario, params: {} },
    options: {}, seed: 0, property: null, schedule: run.schedule, originalLength: run.schedule.length, trace: toPlain(run.events),
  })));
  if (!r.ok) throw new Error(r.error);
  return r.file;
}
