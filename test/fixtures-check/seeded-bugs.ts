// Violating models of every protocol family (their documented, expected findings) and the
// lost-update demo: the first-violation test compares POR on and off on them, and
// `npm run bench -- checker --first` measures what the unreduced re-run costs.
import type { Scenario } from '../../src/actors/index.ts';
import { parseParams } from '../../src/actors/family.ts';
import { parseOutcomes } from '../../src/machines/airflow/config.ts';
import { buildAirflow } from '../../src/machines/airflow/scenario.ts';
import { amberScenario } from '../../src/machines/amber/scenario.ts';
import { buildScenario } from '../../src/machines/materialize/scenario.ts';
import * as C from '../../src/machines/materialize/cases.ts';
import { lostUpdateFamily } from '../../src/machines/demo/lost-update-family.ts';

export interface SeededBug {
  name: string;
  build(): Scenario;
  /** The property the full search reports (test/airflow-check, amber-race, materialize-check). */
  expect: RegExp;
}

export const seededBugs: SeededBug[] = [
  { name: 'lost-update demo (defaults)', build: () => lostUpdateFamily.build(parseParams(lostUpdateFamily, {})), expect: /^no-lost-update$/ },
  { name: 'amber-loop D1 read-at-consume (I2)', build: () => amberScenario({ design: 'read-at-consume', overlapFault: false, designChecks: true }), expect: /^I2 / },
  { name: 'amber-loop F_recreate mid-stream (I1)', build: () => amberScenario({ design: 'read-at-consume', overlapFault: false, recreateFault: true }), expect: /^I1 / },
  { name: 'airflow H6 kill after the marker (INV-14, reported by the INV-12 monitor)', build: () => buildAirflow({ items: 3, W: 2, faultBudget: 1, hardKill: true }), expect: /^INV-12$/ },
  { name: 'airflow H5 without the guard (INV-1)', build: () => buildAirflow({ items: 4, W: 2, h5Guard: false, script: parseOutcomes('sx') }), expect: /^INV-1$/ },
  { name: 'materialize cancel during a walk, retire (cap)', build: () => buildScenario(C.cancelDuringWalk({ slotRelease: 'retire' })), expect: /^running-blocking-within-cap$/ },
];
