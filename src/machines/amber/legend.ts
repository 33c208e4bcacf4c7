// What the ids of an Amber trace stand for (shown by the text report, Mermaid and the
// HTML viewer): each worker's operator, each reader's port, the properties in one line,
// and notes on the steps of the race (docs/amber.md, "The race").
import type { Legend } from '../../actors/index.ts';
import type { Design } from './operators.ts';
import type { Workflow } from './topology.ts';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const KIND: Record<string, string> = {
  source: 'source operator: emits the input table',
  loopStart: 'loop start: buffers the table, emits the loop state for each iteration',
  loopEnd: 'loop end: consumes the loop state, runs update and condition, jumps back',
  jvm: 'body operator on the JVM',
  python: 'body operator in Python (a pass-through hop)',
};

const PROPERTIES: Record<string, string> = {
  I1: 'no reader fetches from a pinned snapshot after its document moved on',
  I2: 'no main-loop read while one of its own readers streams',
  I3: 'the deferred consume runs once per execution, after EndChannel alignment',
  'I3/I10': 'the deferred consume runs once per execution (one stash, one read, one update), after EndChannel alignment',
  I4: '_loop_table is set exactly when an update succeeded',
  I5: 'every successful update consumes an attach made since the last one',
  I6: 'back-edge order: jump before truncating S_in, commit before completion',
  'I6/I7': 'back-edge order (jump before truncating S_in, commit before completion) and what is truncated',
  I8: "the loop end reads the generation its loop start read in the same iteration",
  I9: 'loop-state envelopes are routed as the protocol says',
  I11: 'no success reported after an error; a forced error holds the region',
  I12: 'the loop completes, with the output a direct run of the user code computes',
  I13: 'a failed reader never sends EndChannel: its failure shows only as a hang',
};

export function amberLegend(wf: Workflow, design: Design): Legend {
  const actors: Record<string, string> = {
    coordinator: 'the controller: schedules regions, creates their output documents, starts and ends workers',
    store: 'object store with Iceberg-style documents (a GET of a deleted key answers 403 or 404)',
  };
  for (const op of wf.ops) actors[op.id] = `worker of the ${KIND[op.kind] ?? op.kind}`;
  for (const r of wf.readers) actors[r.id] = `${r.worker}'s reader of one input port: opens, pins, fetches, then sends EndChannel`;
  const ends = wf.ops.filter((o) => o.kind === 'loopEnd').map((o) => esc(o.id)).join('|');
  const readers = wf.readers.map((r) => esc(r.id)).join('|');
  const steps = [
    { step: new RegExp(`^deliver:(${readers})->store:Fetch!403$`), note: "F_overlap: the store answers 403 while the main loop's read is in flight" },
    { step: new RegExp(`^deliver:(${readers})->store:Fetch!404$`), note: 'the store answers 404 (a deleted key) to the reader' },
    { step: new RegExp(`^deliver:store->(${readers}):FetchFailed$`), note: 'the reader logs the error and exits without EndChannel' },
  ];
  if (ends) {
    steps.push({ step: new RegExp(`^deliver:(${readers})->(${ends}):EndChannel$`), note: "the reader's EndChannel: its port is aligned once every reader sent one" });
    if (design === 'read-at-consume') {
      steps.push(
        { step: new RegExp(`^deliver:(${readers})->(${ends}):StateFrame$`), note: 'the matching consume, read at consume time: the main loop opens the loop table now, while its reader streams' },
        { step: new RegExp(`^deliver:(${ends})->store:Open$`), note: 'the main loop opens the loop table (its read is in flight from here)' },
      );
    } else if (design === 'read-at-endchannel') {
      steps.push({ step: new RegExp(`^deliver:(${readers})->(${ends}):StateFrame$`), note: 'the matching consume, stashed: the loop table is read in the EndChannel handler' });
    }
  }
  return { actors, properties: PROPERTIES, steps };
}
