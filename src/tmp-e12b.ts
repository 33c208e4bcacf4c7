import { runSim } from './machines/materialize/simulation.ts';
for (const seed of [1, 2, 3]) for (const chain of ['merge', 'single'] as const) {
  const a = runSim({ fixture: 'e12', design: 'inline', seconds: 120, chain } as any, seed);
  const b = runSim({ fixture: 'e12', design: 'offload', seconds: 120, chain } as any, seed);
  console.log(seed, chain, a.latency.p90.toFixed(1), b.latency.p90.toFixed(1), (b.latency.p90 - a.latency.p90).toFixed(1), ((b.latency.p90 / a.latency.p90 - 1) * 100).toFixed(0) + '%', a.latency.p99.toFixed(1));
}
