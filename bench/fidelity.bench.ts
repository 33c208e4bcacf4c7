// `npm run bench -- fidelity [--quick] [--json]`: one row per figure the source
// documents state, with the value interleave's models produce, the tolerance and
// whether it holds. --quick uses small sizes; --json prints the rows as JSON.
import { fidelityTable } from './fidelity-rows.ts';
import { printTable } from './table.ts';

export default async function (argv: string[]): Promise<void> {
  const t = await fidelityTable({ quick: argv.includes('--quick') });
  if (argv.includes('--json')) {
    console.log(JSON.stringify(t, null, 2));
    return;
  }
  printTable(
    'Fidelity: source figures vs interleave (seed 1)',
    ['family', 'figure', 'source value', 'interleave value', 'tolerance', 'holds'],
    t.rows.map((r) => [r.family, r.figure, r.source, r.interleave, r.tolerance, r.holds ? 'yes' : 'no']),
    t.notComputed.length ? `not computed: ${t.notComputed.join('; ')}` : undefined,
  );
}
