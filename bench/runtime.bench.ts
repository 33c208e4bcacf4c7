// The kernel's step cost against a bare xstate transition, on a ring of N actors
// passing a token. Goal (issue 2): a kernel `apply` costs at most 2x a bare
// cached-scope transition (ratio >= 0.5), and its cost does not grow with N.
// Side table: the same world update written with immer `produce` against the
// hand-written structural sharing the kernel uses.
//
//   npm run bench -- runtime            (about 15 s of CPU)
//   npm run bench -- runtime --quick    (shorter timings, noisier)
import { assign, setup, transition, type AnyMachineSnapshot } from 'xstate';
import { produce, setAutoFreeze } from 'immer';
import { apply, enabled, initialWorld } from '../src/actors/kernel.ts';
import { defineScenario, type Scenario } from '../src/actors/scenario.ts';
import { send } from '../src/actors/dsl.ts';
import { MachineStepper } from '../src/actors/xstate-adapter.ts';
import type { Channel, Message, Step, World } from '../src/actors/types.ts';
import { median, printTable } from './table.ts';

/** CPU microseconds this process has used (user + system): robust to other processes on a shared machine. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * Calls per second of CPU time (not wall time): on a 2-core machine shared by
 * several engineers the wall clock mostly measures the others. Runs `fn` for
 * about `ms` ms of this process's CPU after a short warm-up.
 */
function rate(fn: () => void, ms: number): number {
  const budget = ms * 1000;
  const w0 = cpuMicros();
  while (cpuMicros() - w0 < Math.min(100_000, budget / 4)) for (let i = 0; i < 64; i++) fn();
  let n = 0;
  const t0 = cpuMicros();
  let t = t0;
  while (t - t0 < budget) {
    for (let i = 0; i < 64; i++) fn();
    n += 64;
    t = cpuMicros();
  }
  return (n * 1e6) / (t - t0);
}

/** One ring member: counts tokens and passes each to the next actor. */
export const ringNode = setup({
  types: {} as { context: { next: string; count: number }; input: { next: string }; events: { type: 'token' } },
}).createMachine({
  id: 'ring',
  context: ({ input }) => ({ next: input.next, count: 0 }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        token: { actions: [assign({ count: ({ context }) => context.count + 1 }), send(({ context }) => context.next, { type: 'token' })] },
      },
    },
  },
});

export function ring(n: number): Scenario {
  const actors: Record<string, { logic: typeof ringNode; input: { next: string } }> = {};
  for (let i = 0; i < n; i++) actors[`a${i}`] = { logic: ringNode, input: { next: `a${(i + 1) % n}` } };
  return defineScenario({ name: `ring-${n}`, actors, start: [{ to: 'a0', msg: { type: 'token' } }] });
}

/** The ring's steps in order: after N deliveries the token is back where it started. */
function cycle(sc: Scenario, w0: World): Step[] {
  const steps: Step[] = [];
  let w = w0;
  for (let i = 0; i < sc.ids.length; i++) {
    const s = enabled(sc, w);
    if (s.length !== 1) throw new Error(`ring should offer exactly one step, got ${s.length}`);
    steps.push(s[0]!);
    w = apply(sc, w, s[0]!, { detail: false }).world;
  }
  return steps;
}

/** The ring once the start message from env is delivered: from then on it cycles. */
function warmRing(sc: Scenario): World {
  const w = initialWorld(sc, { detail: false }).world;
  return apply(sc, w, enabled(sc, w)[0]!, { detail: false }).world;
}

function kernelApplyRate(sc: Scenario, ms: number): number {
  const w0 = warmRing(sc);
  const steps = cycle(sc, w0);
  let w = w0;
  let k = 0;
  return rate(() => {
    w = apply(sc, w, steps[k]!, { detail: false }).world;
    k = k + 1 === steps.length ? 0 : k + 1;
  }, ms);
}

function kernelLoopRate(sc: Scenario, ms: number): number {
  let w = initialWorld(sc, { detail: false }).world;
  return rate(() => {
    w = apply(sc, w, enabled(sc, w)[0]!, { detail: false }).world;
  }, ms);
}

function bareStepperRate(ms: number): number {
  const st = new MachineStepper(ringNode, 'a0');
  let s = st.initial({ next: 'a1' }).snapshot;
  const ev: Message = { type: 'token' };
  return rate(() => {
    s = st.step(s, ev).snapshot;
  }, ms);
}

/**
 * The same bare step, round-robin over N snapshots (one per ring member): it keeps
 * N snapshots alive as the ring's world does, so it pays the same GC cost of
 * longer-lived snapshots and isolates the kernel's own overhead.
 */
function bareRoundRobinRate(n: number, ms: number): number {
  const st = new MachineStepper(ringNode, 'a0');
  const snaps = Array.from({ length: n }, (_, i) => st.initial({ next: `a${(i + 1) % n}` }).snapshot);
  const ev: Message = { type: 'token' };
  let k = 0;
  return rate(() => {
    snaps[k] = st.step(snaps[k]!, ev).snapshot;
    k = k + 1 === n ? 0 : k + 1;
  }, ms);
}

function publicTransitionRate(ms: number): number {
  let s = ringNode.resolveState({ value: 'idle', context: { next: 'a1', count: 0 } }) as AnyMachineSnapshot;
  const ev = { type: 'token' } as const;
  return rate(() => {
    s = transition(ringNode, s, ev)[0] as AnyMachineSnapshot;
  }, ms);
}

// --- side table: the world update of one ring step, hand-written against immer ---

interface MiniWorld {
  readonly snaps: readonly { readonly count: number }[];
  readonly inbox: readonly (readonly Channel[])[];
}

function miniWorld(n: number): MiniWorld {
  return {
    snaps: Array.from({ length: n }, () => ({ count: 0 })),
    inbox: Array.from({ length: n }, (_, i) => (i === 0 ? [{ from: n - 1, queue: [{ type: 'token' }] }] : [])),
  };
}

/** Deliver the token at `i`: dequeue, bump the receiver's count, enqueue at i+1. */
function handStep(w: MiniWorld, i: number): MiniWorld {
  const n = w.snaps.length;
  const j = (i + 1) % n;
  const snaps = w.snaps.slice();
  snaps[i] = { count: snaps[i]!.count + 1 };
  const inbox = w.inbox.slice();
  const msg = inbox[i]![0]!.queue[0]!;
  inbox[i] = [];
  inbox[j] = [...inbox[j]!, { from: i, queue: [msg] }];
  return { snaps, inbox };
}

function immerStep(w: MiniWorld, i: number): MiniWorld {
  const n = w.snaps.length;
  const j = (i + 1) % n;
  return produce(w, (d) => {
    (d.snaps[i] as { count: number }).count++;
    const msg = d.inbox[i]![0]!.queue[0]!;
    (d.inbox as Channel[][])[i] = [];
    (d.inbox[j] as Channel[]).push({ from: i, queue: [msg] });
  });
}

function sideRate(step: (w: MiniWorld, i: number) => MiniWorld, n: number, ms: number): number {
  let w = miniWorld(n);
  let i = 0;
  return rate(() => {
    w = step(w, i);
    i = i + 1 === n ? 0 : i + 1;
  }, ms);
}

export default async function (argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const ms = quick ? 80 : 150;
  const reps = quick ? 3 : 5;
  const sizes = [2, 8, 64];
  const scs = sizes.map(ring);
  // Warm every path up first so the first row does not pay for JIT tiering.
  for (const sc of scs) kernelApplyRate(sc, 50);
  bareStepperRate(50);

  // Kernel and bare run back to back in each rep; the ratio is the median of the
  // per-rep ratios, so a change in load between reps cancels out.
  const pub = publicTransitionRate(ms);
  const rows: (string | number)[][] = [];
  for (const sc of scs) {
    const n = sc.ids.length;
    const k: number[] = [];
    const bare: number[] = [];
    const bareN: number[] = [];
    const ratio: number[] = [];
    const ratioN: number[] = [];
    for (let r = 0; r < reps; r++) {
      const b = bareStepperRate(ms);
      const bn = bareRoundRobinRate(n, ms);
      const a = kernelApplyRate(sc, ms);
      k.push(a);
      bare.push(b);
      bareN.push(bn);
      ratio.push(a / b);
      ratioN.push(a / bn);
    }
    const loop = kernelLoopRate(sc, ms);
    rows.push([`ring of ${n}`, Math.round(median(k)), Math.round(loop), Math.round(median(bare)), Math.round(median(bareN)), Math.round(pub), median(ratio), median(ratioN)]);
  }
  printTable(
    'kernel apply vs bare xstate transition (steps per CPU second, ring passing a token)',
    ['system', 'apply (detail:false)', 'enabled+apply', 'bare step, 1 snapshot', 'bare step, N snapshots', 'public transition()', 'apply/bare', 'apply/bare N'],
    rows,
    [
      `Goal: apply/bare >= 0.5 and flat in N. Medians of ${reps} back-to-back runs of ${ms} ms of CPU (process.cpuUsage, robust to other load).`,
      'bare step = MachineStepper.step (cached-scope machine.transition) on one ring node in a loop; "N snapshots" steps N nodes round-robin,',
      'keeping N snapshots alive as the world does (their GC cost grows with N for xstate alone); apply/bare N is the kernel\'s own overhead.',
    ].join('\n'),
  );

  const side: (string | number)[][] = [];
  for (const n of sizes) {
    const hand = median(Array.from({ length: 3 }, () => sideRate(handStep, n, ms)));
    setAutoFreeze(false);
    const imNoFreeze = median(Array.from({ length: 3 }, () => sideRate(immerStep, n, ms)));
    setAutoFreeze(true);
    const im = median(Array.from({ length: 3 }, () => sideRate(immerStep, n, ms)));
    side.push([`ring of ${n}`, Math.round(hand), Math.round(im), Math.round(imNoFreeze), hand / im, hand / imNoFreeze]);
  }
  printTable(
    'world update of one ring step: hand-written structural sharing vs immer produce (updates per CPU second)',
    ['system', 'hand-written', 'produce (autoFreeze on)', 'produce (autoFreeze off)', 'hand/produce', 'hand/produce (no freeze)'],
    side,
    'Same update both ways: dequeue the token, bump the receiver, enqueue at the next actor (snapshots stood in by { count }).',
  );
}
