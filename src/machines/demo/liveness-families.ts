// `interleave check rally` / `interleave check retry`: the liveness demos (rally.ts).
import { defineFamily } from '../../actors/family.ts';
import { rally, retry, type FairnessChoice, type RallyEnd } from './rally.ts';

const fairness = { type: 'enum', values: ['actors', 'channels', 'none'], default: 'actors', description: 'weak fairness per actor (default), on the one env channel that ends the run, or none' } as const;

/** The `rally` family: {@link rally} with `end` and `fairness` parameters. */
export const rallyFamily = defineFamily({
  name: 'rally',
  description: 'two players hit a ball forever; liveness of what should end the rally, under weak fairness',
  params: {
    end: { type: 'enum', values: ['endless', 'referee', 'stop'], default: 'endless', description: 'what ends the rally: nothing, a referee\'s whistle, or a stop message to player a' },
    fairness,
  },
  build: (p) => rally(p.end as RallyEnd, p.fairness as FairnessChoice),
  hint: (p, violated) =>
    violated && p.end === 'endless'
      ? 'a whistle to a referee ends it under weak fairness: npx interleave check rally --param end=referee'
      : violated && p.end === 'stop' && p.fairness === 'actors'
        ? 'per-actor fairness is met by the balls; fairness on the env -> a channel delivers the stop: npx interleave check rally --param end=stop --param fairness=channels'
        : undefined,
});

/** The `retry` family: {@link retry} with `maxRetries`, `recovers` and `fairness` parameters. */
export const retryFamily = defineFamily({
  name: 'retry',
  description: 'a client retries against a server that is down; leadsTo(request, response) and non-progress cycles',
  params: {
    maxRetries: { type: 'int', min: 0, max: 20, default: 0, description: 'retries before giving up (0: without bound)' },
    recovers: { type: 'bool', default: false, description: 'env sends the server a recover message' },
    fairness,
  },
  build: (p) => retry(Number(p.maxRetries), Boolean(p.recovers), p.fairness as FairnessChoice),
  hint: (p, violated) => (violated && Number(p.maxRetries) === 0 ? 'bounded retries answer every request: npx interleave check retry --param maxRetries=3' : undefined),
});
