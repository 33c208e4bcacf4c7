// `interleave check lost-update`: the smallest race the checker finds, and its fix.
import { defineFamily, type ParamValues } from '../../actors/family.ts';
import { deriveSeed, percentile, rng, simulate } from '../../actors/index.ts';
import { lostUpdate, type LostUpdateDesign } from './lost-update.ts';

const designs: readonly LostUpdateDesign[] = ['read-then-write', 'compare-and-set'];

function build(p: ParamValues) {
  return lostUpdate(p.design as LostUpdateDesign, Number(p.clients));
}

/** The `lost-update` family: {@link lostUpdate} with `design` and `clients` parameters, and a simulation. */
export const lostUpdateFamily = defineFamily({
  name: 'lost-update',
  description: 'clients increment a shared counter; read-then-write loses updates, compare-and-set does not',
  params: {
    design: { type: 'enum', values: designs, default: 'read-then-write', description: 'how a client writes the incremented value' },
    clients: { type: 'int', min: 1, max: 6, default: 2, description: 'clients incrementing at once' },
  },
  build,
  checkDefaults: { strategy: 'dfs' },
  hint: (p, violated) =>
    violated && p.design === 'read-then-write'
      ? `the fixed design passes: npx interleave check lost-update --param design=compare-and-set --param clients=${p.clients}`
      : undefined,
  simulate(p, { seed }) {
    const runs = 200;
    const rows = designs.map((design) => {
      const sc = lostUpdate(design, Number(p.clients));
      let lost = 0;
      const ends: number[] = [];
      let msgs = 0;
      for (let i = 0; i < runs; i++) {
        const r = rng(deriveSeed(seed, i));
        // Network latency 1..10 virtual ms; the store serves a request in 1 ms.
        const run = simulate(sc, { latency: () => 1 + r.int(10), service: (_m, to) => (to === 'store' ? 1 : 0) }, { seed: deriveSeed(seed, i) });
        const store = run.world.snaps[sc.index.get('store')!] as { value: number };
        if (store.value !== Number(p.clients)) lost++;
        ends.push(run.now);
        msgs += run.events.filter((e) => e.kind === 'deliver').length;
      }
      return [design, runs, lost, `${((100 * lost) / runs).toFixed(1)}%`, percentile(ends, 50), percentile(ends, 99), (msgs / runs).toFixed(1)] as (string | number)[];
    });
    return {
      title: `lost-update with ${p.clients} clients, ${runs} seeded runs per design (seed ${seed})`,
      tables: [{ title: 'lost updates and completion time (virtual ms)', columns: ['design', 'runs', 'lost', 'lost %', 'p50 ms', 'p99 ms', 'deliveries/run'], rows }],
      data: { clients: p.clients, runs, rows },
    };
  },
});
