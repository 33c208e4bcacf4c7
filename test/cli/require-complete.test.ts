// --require-complete: a check that found no violation but stopped early is not a pass.
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';

describe('check --require-complete', () => {
  it('exits 1 with an INCOMPLETE line when a budget cut the search, 0 when it was complete', async () => {
    const cut = await runMain('check', 'lost-update', '--param', 'design=compare-and-set', '--max-states', '5', '--require-complete');
    expect(cut.code, cut.stdout + cut.stderr).toBe(1);
    expect(cut.stdout).toContain('exploration not complete: cut by the --max-states budget');
    expect(cut.stdout).toContain('INCOMPLETE: --require-complete: the exploration was cut by the --max-states budget; exit 1');
    const json = await runMain('check', 'lost-update', '--param', 'design=compare-and-set', '--max-states', '5', '--require-complete', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, complete: false, requireComplete: true });
    // Without the flag the same cut search exits 0 (and says it was cut).
    expect((await runMain('check', 'lost-update', '--param', 'design=compare-and-set', '--max-states', '5')).code).toBe(0);
    const whole = await runMain('check', 'lost-update', '--param', 'design=compare-and-set', '--require-complete');
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain('exploration complete: every reachable state was visited');
  });
});
