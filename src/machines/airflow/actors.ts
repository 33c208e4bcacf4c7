// The supervisor with its API (api.ts) and the task runner (runner.ts) in one import.
export { SCOPE, shardOf, shardsOf, supervisorApi, type ApiState, type XComState } from './api.ts';
export { runnerMachine, type RunnerCtx } from './runner.ts';
