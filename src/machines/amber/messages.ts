// The message vocabulary of the Amber loop model: control RPCs between the
// coordinator and workers, the data channel a materialization reader feeds into
// its worker, and the storage requests and replies. Every message is a plain
// object with a `type`; payloads are Arrow batches (`Batch`) or small JSON.
import { portBaseUri, resultUri as storageResultUri, stateUri as storageStateUri } from '../../storage/keys.ts';
import type { Batch } from './data.ts';

/** A materialized State row: `content` (JSON), `loop_counter`, `loop_start_id`. */
export interface StateRow {
  readonly content: string;
  readonly counter: number;
  /** `''` for an unstamped state. */
  readonly lsId: string;
}

// ---- addressing (src/storage/keys.ts: Texera's VFSURIFactory) ----------------------

const bases = new Map<string, string>();
const results = new Map<string, string>();
const states = new Map<string, string>();

/** Base URI of an operator's output port 0: `vfs:///wid/1/eid/1/globalportid/(logicalOpId=…,…)`. */
export function portBase(op: string): string {
  let b = bases.get(op);
  if (b === undefined) bases.set(op, (b = portBaseUri({ wid: 1, eid: 1, port: { logicalOpId: op, portId: 0 } })));
  return b;
}
/** `result_uri(base)`, memoised (the storage layer validates the base on every call). */
export function resultUri(base: string): string {
  let u = results.get(base);
  if (u === undefined) results.set(base, (u = storageResultUri(base)));
  return u;
}
/** `state_uri(base)`, memoised. */
export function stateUri(base: string): string {
  let u = states.get(base);
  if (u === undefined) states.set(base, (u = storageStateUri(base)));
  return u;
}
/** A short name for traces and messages: the operator and document of a URI. */
export function shortUri(uri: string): string {
  const m = /logicalOpId=([^,]+).*\)(?:\/(result|state))?$/.exec(uri);
  return m ? `${m[1]}.out${m[2] ? `/${m[2]}` : ''}` : uri;
}

// ---- coordinator -> worker -----------------------------------------------------------

export interface InputChannel {
  /** The reader actor that replays this channel. */
  readonly reader: string;
  /** Base URI of the upstream output port it reads. */
  readonly base: string;
}

/** InitializeExecutor + AssignPort + AddInputChannel + OpenExecutor + StartWorker, collapsed into one (their order is fixed on one channel). */
export interface StartMsg {
  readonly type: 'Start';
  readonly exec: number;
  /** `loopStartPortUris`: Loop Start logical op id -> base URI of the port it reads. */
  readonly loopStartPortUris: Readonly<Record<string, string>>;
  readonly inputs: readonly InputChannel[];
  readonly outBase: string;
}

// ---- reader <-> worker data channel ----------------------------------------------------

export type DataMsg =
  | { readonly type: 'StartChannel'; readonly ch: string }
  | { readonly type: 'StateFrame'; readonly ch: string; readonly row: StateRow }
  | { readonly type: 'DataFrame'; readonly ch: string; readonly batch: Batch }
  | { readonly type: 'EndChannel'; readonly ch: string };

// ---- storage --------------------------------------------------------------------------

/** Who asked: a reader (`reader` set) or a worker's main loop. */
export interface Requester {
  readonly worker: string;
  readonly reader?: string;
}

export type StoreRequest =
  | { readonly type: 'CreatePort'; readonly base: string; readonly reuse: boolean }
  | { readonly type: 'ResetPort'; readonly base: string }
  | ({ readonly type: 'OpenPort'; readonly base: string } & Requester)
  | ({ readonly type: 'Open'; readonly uri: string } & Requester)
  | ({ readonly type: 'Pin'; readonly uri: string } & Requester)
  | ({ readonly type: 'Fetch'; readonly uri: string; readonly key: string; readonly gen: number; readonly last: boolean } & Requester)
  | { readonly type: 'CommitPort'; readonly base: string; readonly rows: readonly Batch[]; readonly states: readonly StateRow[] }
  | { readonly type: 'CreateDoc'; readonly uri: string }
  | { readonly type: 'Commit'; readonly uri: string; readonly states: readonly StateRow[]; readonly purpose: 'back-edge' };
