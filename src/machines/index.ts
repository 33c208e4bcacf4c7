// The `interleave/machines` entry point: the protocol models bundled with interleave
// (the scenario families `interleave list` shows) and their scenario builders.
/**
 * The protocol models bundled with interleave (amber-loop, airflow-checkpoints, materialize-peeks and the demos) and their scenario builders.
 *
 * @module interleave/machines
 */
export { families, findFamily, familySource, type FamilySource } from './catalog.ts';
export { pingPongFamily } from './demo/family.ts';
export { lostUpdateFamily } from './demo/lost-update-family.ts';
export { pingPong, pinger, ponger, type PingerMachine, type PongerMachine, type PingerContext, type PingerInput, type PingerEvent, type PongerContext, type PongerEvent, type StartEvent, type BallEvent, type DemoMachine } from './demo/ping-pong.ts';
export { lostUpdate, type LostUpdateDesign } from './demo/lost-update.ts';
export { rallyFamily, retryFamily } from './demo/liveness-families.ts';
export { rally, retry, type RallyEnd, type FairnessChoice } from './demo/rally.ts';
export { amberLoopFamily } from './amber/family.ts';
export { amberScenario, DEFAULT_PARAMS as AMBER_DEFAULT_PARAMS, type AmberParams } from './amber/scenario.ts';
export type { StoreState as AmberStoreState } from './amber/store.ts';
export { DESIGNS as AMBER_DESIGNS, type Design as AmberDesign } from './amber/operators.ts';
export { airflowFamily } from './airflow/family.ts';
export { buildAirflow } from './airflow/scenario.ts';
export { SCOPE as AIRFLOW_SCOPE } from './airflow/api.ts';
export { configOf as airflowConfig, DEFAULT_CONFIG as AIRFLOW_DEFAULT_CONFIG, type AirflowConfig } from './airflow/config.ts';
export { materializePeeksFamily } from './materialize/family.ts';
export { buildScenario as buildMaterialize, type Setup as MaterializeSetup } from './materialize/scenario.ts';
