// Storage actors: simulated reducers and live adapters speaking the protocols in
// messages.ts. See docs/storage.md.
/**
 * Simulated storage actors (object store with Iceberg-style documents, task state store, peek stash), the request constructors machines send and the reply types. See docs/storage.md.
 *
 * @module interleave/storage
 */
export * from './messages.ts';
export * from './keys.ts';
export { objectStore, handleS3 } from './object-store.ts';
export { emptyStore, missingKeyError, type StoreState, type DocEntry, type ReaderEntry, type DataFile, type StoreConfig } from './store-core.ts';
export { handleDoc, isDocRequest, readerId, dataFileKey, docWriter, appendRows, closeWriter, encodeRows, decodeFile, decodeRows, type DocWriter } from './documents.ts';
export {
  taskStateStore,
  handleTaskState,
  taskStateConfig,
  taskStateObjectKey,
  taskStateObjectPrefix,
  taskStateValue,
  scopeProblem,
  scopeRowId,
  valueBytes,
  sizeWarning,
  type TaskStateState,
  type TaskStateRow,
  type TaskStateConfig,
} from './task-state.ts';
export { peekStash, shouldStash, shardName, uploadParts, type StashState, type Upload, type Shard } from './stash.ts';
export * from './invariants.ts';
export { simClient, type SimClient, type SimCall } from './sim-client.ts';
// Live adapters (fs, SQLite) are in './live/index.ts', so importing the simulated
// stores does not load native modules.
export { scriptClient, type ScriptState } from './script-client.ts';
