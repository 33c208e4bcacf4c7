// What a search reaches, as sets: the quiescent worlds (by fingerprint) and every
// violated property (the search goes on past each). The POR tests compare these
// with and without the reduction.
import type { Scenario, World } from '../../src/actors/index.ts';
import { WorldHasher, check, fpHex, type CheckOptions, type CheckResult } from '../../src/check/index.ts';

export interface Reached {
  r: CheckResult;
  quiescent: Set<string>;
  violated: Set<string>;
}

export async function exploreSets(sc: Scenario, strategy: 'dfs' | 'bfs', por: boolean, opts: { symmetric?: boolean; maxStates?: number } = {}): Promise<Reached> {
  const hasher = new WorldHasher(sc, opts.symmetric ?? false);
  const quiescent = new Set<string>();
  const violated = new Set<string>();
  const options: CheckOptions = {
    strategy,
    por,
    shrink: false,
    ...(opts.maxStates === undefined ? {} : { maxStates: opts.maxStates }),
    inspect: {
      quiescent: (w: World) => void quiescent.add(fpHex(hasher.fp(w))),
      violation: (p) => {
        violated.add(`${p.kind}:${p.name}`);
        return true;
      },
    },
  };
  const r = await check(sc, options);
  return { r, quiescent, violated };
}
