// What `replay` and `check --from` say when a recorded reply's data differ from the model's.

/** Why a recorded reply can differ from the model's, and what to do. */
export const DATA_WHY =
  "The model started from other state than the live run found (record the storage's contents at the start: runLive's `initial` option; a run resumed from checkpoints needs its start state recorded), or the model changed since the trace was saved. " +
  '--ignore-data compares only the steps and the reply types.';
