// Live storage adapters: the same requests and replies as the simulated stores, real I/O.
export { FsObjectStore, type FsObjectStoreOptions, type FsSnapshot } from './fs-object-store.ts';
export { SqliteTaskStateStore, type SqliteTaskStateOptions, type SqliteDatabase } from './sqlite-task-state.ts';
export { ObjectTaskStateStore } from './object-task-state.ts';
export { answerTaskState, taskStateHandler, type TaskStateBackendApi } from './task-state-api.ts';
export { FsDocumentStore } from './fs-document-store.ts';
export { SqliteTaskLease, LeaseLostError, readLease, checkFence, type AcquireResult, type LeaseOptions, type LeaseRow } from './sqlite-lease.ts';
export { useWal, type UseWalOptions } from './sqlite-wal.ts';
export { S3ObjectStore, type S3ObjectStoreOptions, type S3ClientLike } from './s3-object-store.ts';
export { PostgresTaskStateStore, type PostgresTaskStateOptions } from './pg-task-state.ts';
export { PostgresTaskLease, readPgLease, checkPgFence } from './pg-lease.ts';
export type { PgPool, PgClient, PgQueryable, PgResult } from './pg-connection.ts';
