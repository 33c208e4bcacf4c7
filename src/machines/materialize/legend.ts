// What the ids of a Materialize peek trace stand for (docs/materialize.md: actors and
// the properties 1-11), shown by the text report, Mermaid and the HTML viewer.
import type { Legend } from '../../actors/index.ts';
import { CLIENT, POOL, STASH, WORKLOAD } from './types.ts';

const PROPERTIES: Record<string, string> = {
  'offloaded-equals-inline': '1: every walk answers what the inline walk over the same batches answers',
  'counters-partition-walks': '2: each walk is counted once, as offloaded, inline or capped',
  'dispatch-gates-and-placement': '2, 4, 11: placement follows the flags and the cap; nothing read before the frontier; dispatch only between steps',
  'in-flight-within-cap': '3: walks in flight never exceed the cap at the last claim',
  'running-blocking-within-cap': '3: walks running on the blocking pool never exceed the cap',
  'slot-released-once': '5: every claimed slot is returned exactly once',
  'slots-returned': '5: no slot is still claimed when everything is quiet',
  'stash-slot-and-answer': '6, 7: the slot is held across a stash upload; a diverted peek never answers Rows',
  'one-response-per-worker': '8: one response per (worker, peek)',
  'every-peek-answered': '8, 9: every peek gets its one merged response (no lost wakeup)',
  'holds-match-pending': '10: the read holds are exactly the pending peeks not yet offloaded',
  'no-orphaned-holds': '10: no hold or pending peek is left when everything is quiet',
  'pool-idle': 'the blocking pool ends idle',
};

export function materializeLegend(workers: number): Legend {
  const actors: Record<string, string> = {
    [POOL]: 'the blocking pool: runs offloaded walks, each a timer of virtual time',
    [STASH]: 'the peek response stash: large answers are uploaded here',
    [CLIENT]: 'the client and aggregator: issues peeks, merges one response per worker',
    [WORKLOAD]: 'the operator workload: insert cycles that keep the workers stepping',
  };
  for (let w = 0; w < workers; w++) actors[`w${w}`] = `timely worker ${w}: steps operators, then serves commands and peeks`;
  return {
    actors,
    properties: PROPERTIES,
    steps: [
      { step: /^deliver:w\d+->pool:SpawnWalk$/, note: 'the peek is offloaded: its walk runs on the blocking pool, the worker goes on' },
      { step: /^deliver:pool->w\d+:WalkResult$/, note: "the offloaded walk's answer comes back to its worker" },
      { step: /^deliver:client->w\d+:CancelPeek/, note: 'the client cancels the peek' },
    ],
  };
}
