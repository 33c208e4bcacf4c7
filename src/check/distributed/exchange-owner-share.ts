// One owner sample per exchange run. The choice (exchange-owner.ts) is a deterministic
// function of the scenario, the shard count and the mode, so every shard would pick the
// same key; sampling it in every shard only spends each shard's start-up CPU. The first
// shard to create `owner-lock` samples and writes `owner.json` (tagged with the run id);
// the others wait for it without spending CPU. A shard that waits past the limit (the
// sampling shard was killed) samples itself: the same answer, so the run stays correct.
import { readJson, type DirIo } from './exchange-dir.ts';
import { chooseOwner, type OwnerChoice } from './exchange-owner.ts';
import type { Scenario } from '../../actors/index.ts';

/** The run's owner choice and the 0-based shard that sampled it (absent when nothing was sampled). */
export interface SharedOwner extends OwnerChoice {
  sampledBy?: number;
}

interface OwnerFile extends OwnerChoice {
  runId: string;
  sampledBy: number;
}

/** How long a shard waits for another shard's sample before sampling itself, and how often it looks. */
export const OWNER_WAIT = { waitMs: 30_000, pollMs: 10 } as const;

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * The run's owner choice: sampled by one shard of the run and read by the others.
 * Without a sample (`mode` 'fingerprint', one shard, symmetry) every shard decides alone.
 */
export async function shareOwner(
  io: DirIo,
  runId: string,
  index: number,
  sc: Scenario,
  count: number,
  opts: { symmetric: boolean; mode?: 'auto' | 'fingerprint'; sample?: number; waitMs?: number; pollMs?: number; sleep?: (ms: number) => Promise<void> },
): Promise<SharedOwner> {
  const choose = (): OwnerChoice => chooseOwner(sc, count, { symmetric: opts.symmetric, ...(opts.mode ? { mode: opts.mode } : {}), ...(opts.sample === undefined ? {} : { sample: opts.sample }) });
  if (opts.mode === 'fingerprint' || count <= 1 || opts.symmetric) return choose();
  const sampleHere = (): SharedOwner => {
    const c = choose();
    const mine: OwnerFile = { ...c, runId, sampledBy: index };
    io.write('owner.json', `${JSON.stringify(mine)}\n`);
    return { ...c, sampledBy: index };
  };
  if (io.create('owner-lock', `${JSON.stringify({ runId, by: index })}\n`)) return sampleHere();
  const wait = opts.sleep ?? sleep;
  const limit = opts.waitMs ?? OWNER_WAIT.waitMs;
  const poll = opts.pollMs ?? OWNER_WAIT.pollMs;
  for (let waited = 0; ; waited += poll) {
    let f: OwnerFile | undefined;
    try {
      f = readJson<OwnerFile>(io, 'owner.json');
    } catch {
      f = undefined;
    }
    if (f && f.runId === runId && typeof f.sampledBy === 'number' && (f.key?.kind === 'fingerprint' || (f.key?.kind === 'actor' && sc.ids[f.key.index] === f.key.id))) {
      const { runId: _run, ...choice } = f;
      return choice;
    }
    if (waited >= limit) break;
    await wait(poll);
  }
  // The sampling shard never wrote its choice: sample here (the same seeded walks, the same key).
  const c = choose();
  return { ...c, sampledBy: index };
}
