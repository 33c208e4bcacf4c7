// Kept for importers of the earlier layout (examples/iterable-task, live tests): the
// supervisor with the API lives in api.ts, the runner in runner.ts.
export { SCOPE, shardOf, shardsOf, supervisorApi, type ApiState, type XComState } from './api.ts';
export { runnerMachine, type RunnerCtx } from './runner.ts';
