// What the ids of an airflow-checkpoints trace stand for (docs/airflow.md: actors and
// properties), shown by the text report, Mermaid and the HTML viewer.
import type { Legend } from '../../actors/index.ts';

const PROPERTIES: Record<string, string> = {
  'INV-1': 'one request at a time per try on the request channel',
  'INV-2': 'the marker is written only after every write it covers returned',
  'INV-3': 'a persisted completed marker only for SUCCESS or SKIPPED',
  'INV-4': 'batch keys are a contiguous prefix (nothing deleted from outside)',
  'INV-5': 'a rewrite by the same try keeps every entry it had',
  'INV-6': 'no entry under two keys',
  'INV-7': 'rounds of exactly W entries without failures; the rest is under W',
  'INV-8': 'the checkpoint is read before anything runs; a read error means nothing at all',
  'INV-9': 'batches are read 0, 1, 2… stopping at the first missing one',
  'INV-10': 'the latest entry wins; a fresh success replays once and never runs again',
  'INV-12': 'a confirmed outcome inside the prefix a try read never reruns',
  'INV-13': 'success callbacks at most once per durable outcome',
  'INV-15': 'failure callbacks after every run ends, one fate each',
  'INV-16': 'success leaves every non-skipped return_value_<i>',
  'INV-17': 'without faults: ⌈R/W⌉ confirmed writes, R per index',
  'INV-18': 'no empty write; after the loop only the rest, then the marker',
  'LIV-1': 'with transient faults and enough tries the task succeeds',
  'LIV-2': 'a try with no injected fault ends with all it recorded durable',
  'LIV-3': 'the startup read ends',
  'LEASE-1': 'no index runs in two processes at once unless one of them lost its lease to an expiry',
  'LEASE-2': 'no write with a stale fencing token lands (a zombie is fenced)',
  'LEASE-3': 'the task instance reaches a final state',
};

export function airflowLegend(): Legend {
  return {
    actors: {
      task: 'the task process: reads its checkpoint, runs the items W at a time, writes rounds, the rest and the marker',
      task2: 'a second process on the same task (a double dispatch, or a zombie’s successor)',
      supervisor: 'the supervisor with the API server: one API call per request, the task state store and XCom behind it',
      runner: 'the scheduler: starts each try, retries, clears between tries',
    },
    properties: PROPERTIES,
    steps: [
      { step: /^deliver:task2?->supervisor:SetTaskStateStore!ambiguous$/, note: 'the write is applied but its reply is lost: the task cannot tell' },
      { step: /^deliver:task2?->supervisor:SetTaskStateStore!fail$/, note: 'the checkpoint write fails' },
      { step: /^deliver:task2?->supervisor:GetTaskStateStore!vanished$/, note: 'the batch was deleted from outside just before this read' },
      { step: /^crash:task2?$/, note: 'hard kill: the process and its running operators are gone' },
      { step: /^restart:task2?$/, note: 'the next try starts in a fresh process' },
    ],
  };
}
