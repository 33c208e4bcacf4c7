// Object keys and materialization URIs. Keys are flat strings with `/` as a
// separator; the rules below keep every key inside its store (and inside the live
// adapter's root directory): no absolute paths, no `.`/`..`, no empty segments.
import { ScenarioError } from '../actors/scenario.ts';

/** A key or URI was malformed or tried to escape its store. */
export class StorageKeyError extends ScenarioError {
  /** Always `'StorageKeyError'`. */
  override name = 'StorageKeyError';
}

/** Segments the live filesystem store uses for its temp files; keys may not use them. */
export const TEMP_PREFIX = '.tmp-';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `key` is not a valid object key, or `undefined` when it is. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return `a key must be a string, got ${key === null ? 'null' : typeof key}`;
  if (key.length === 0) return 'a key must not be empty';
  if (key.length > 1024) return `a key must be at most 1024 characters, got ${key.length}`;
  if (key.startsWith('/')) return `key '${key}' is absolute; keys are relative to the bucket (drop the leading '/')`;
  if (/^[A-Za-z]:/.test(key)) return `key '${key}' looks like a drive path; keys are relative to the bucket`;
  if (key.includes('\\')) return `key '${key}' contains a backslash; use '/' as the separator`;
  if (key.includes('\0')) return `key '${JSON.stringify(key)}' contains a NUL character`;
  if (LONE_SURROGATE.test(key)) return `key ${JSON.stringify(key)} contains a lone UTF-16 surrogate, which has no UTF-8 form (a file system would store it as U+FFFD, aliasing other keys); use well-formed Unicode`;
  const segs = key.split('/');
  for (const s of segs) {
    if (s.length === 0) return `key '${key}' has an empty segment ('//' or a trailing '/')`;
    if (s === '.' || s === '..') return `key '${key}' has a '${s}' segment, which could escape the store; name the object directly`;
    if (s.startsWith(TEMP_PREFIX)) return `key '${key}' has a segment starting with '${TEMP_PREFIX}', which is reserved for temporary files`;
  }
  return undefined;
}

/** Why `prefix` is not a valid list prefix (`''`, or a key that may end mid-segment or with '/'), or `undefined`. */
export function prefixProblem(prefix: unknown): string | undefined {
  if (typeof prefix !== 'string') return "a list prefix must be a string (use '' for every key)";
  if (prefix.length === 0) return undefined;
  const p = keyProblem(prefix.endsWith('/') ? `${prefix}x` : prefix);
  return p === undefined ? undefined : `prefix '${prefix}': ${p}`;
}

/** Throws a `StorageKeyError` unless `key` is a valid object key. */
export function checkKey(key: unknown): string {
  const p = keyProblem(key);
  if (p !== undefined) throw new StorageKeyError(p);
  return key as string;
}

/** Joins key segments with `/`, checking the result. */
export function joinKey(...parts: readonly (string | number)[]): string {
  return checkKey(parts.map(String).join('/'));
}

// ---------------------------------------------------------------------------
// Materialization addressing (Amber, docs/amber.md)
// ---------------------------------------------------------------------------

/** Amber's GlobalPortIdentity. */
export interface GlobalPortId {
  /** The operator's logical id. */
  readonly logicalOpId: string;
  /** The operator's layer (default `main`). */
  readonly layerName?: string;
  /** The port's number on the operator. */
  readonly portId: number;
  /** An internal port (default false). */
  readonly isInternal?: boolean;
  /** An input port (default false: output). */
  readonly isInput?: boolean;
}

/** Where a port's documents live: workflow, execution and port (and the warehouse, if any). */
export interface PortAddress {
  /** Warehouse name; adds `wh/<warehouse>/` to the path. */
  readonly warehouse?: string;
  /** The workflow id. */
  readonly wid: number | string;
  /** The execution id. */
  readonly eid: number | string;
  /** The port. */
  readonly port: GlobalPortId;
}

const PART_RE = /^[A-Za-z0-9_.@:+=-]+$/;

function part(what: string, v: string | number): string {
  const s = String(v);
  if (!PART_RE.test(s) || s === '.' || s === '..') {
    throw new StorageKeyError(`${what} '${s}' cannot be part of a storage URI: use letters, digits and _ . @ : + = - (no '/', no '..', not empty)`);
  }
  return s;
}

/**
 * A port's base URI:
 * `vfs:///[wh/<warehouse>/]wid/<wid>/eid/<eid>/globalportid/(logicalOpId=…,layerName=…,portId=…,isInternal=…,isInput=…)`.
 */
export function portBaseUri(a: PortAddress): string {
  const p = a.port;
  const gp = `(logicalOpId=${part('logicalOpId', p.logicalOpId)},layerName=${part('layerName', p.layerName ?? 'main')},portId=${part('portId', p.portId)},isInternal=${Boolean(p.isInternal)},isInput=${Boolean(p.isInput)})`;
  const wh = a.warehouse === undefined ? '' : `wh/${part('warehouse', a.warehouse)}/`;
  return `vfs:///${wh}wid/${part('wid', a.wid)}/eid/${part('eid', a.eid)}/globalportid/${gp}`;
}

/** The two documents of a port: its result table and its loop state. */
export type ResourceType = 'result' | 'state';

/** The result document of a port: `base + "/result"`. */
export function resultUri(base: string): string {
  parseVfs(base, false);
  return `${base}/result`;
}

/** The state document of a port: `base + "/state"`. */
export function stateUri(base: string): string {
  parseVfs(base, false);
  return `${base}/state`;
}

interface ParsedVfs {
  readonly segments: readonly string[];
  readonly warehouse?: string;
  readonly resource?: ResourceType;
}

function parseVfs(uri: string, needResource: boolean): ParsedVfs {
  if (typeof uri !== 'string') throw new StorageKeyError(`a storage URI must be a string, got ${typeof uri}`);
  if (!uri.startsWith('vfs:///')) throw new StorageKeyError(`storage URI '${uri}' must start with 'vfs:///' (build one with portBaseUri)`);
  const path = uri.slice('vfs:///'.length);
  const problem = keyProblem(path);
  if (problem !== undefined) throw new StorageKeyError(`storage URI '${uri}': ${problem.replace(/^key '[^']*'/, 'its path')}`);
  let segments = path.split('/');
  let warehouse: string | undefined;
  if (segments[0] === 'wh') {
    if (segments.length < 2) throw new StorageKeyError(`storage URI '${uri}' has 'wh/' without a warehouse name`);
    warehouse = segments[1];
    segments = segments.slice(2);
  }
  const last = segments[segments.length - 1];
  const resource = last === 'result' || last === 'state' ? last : undefined;
  if (needResource && resource === undefined) {
    throw new StorageKeyError(`storage URI '${uri}' names no document: end it with '/result' or '/state' (use resultUri(base) or stateUri(base))`);
  }
  if (!needResource && resource !== undefined) {
    throw new StorageKeyError(`'${uri}' is already a document URI; resultUri/stateUri take a port's base URI`);
  }
  return warehouse === undefined ? { segments, ...(resource ? { resource } : {}) } : { segments, warehouse, ...(resource ? { resource } : {}) };
}

/** The resource type of a document URI (`result` or `state`). */
export function resourceOf(uri: string): ResourceType {
  return parseVfs(uri, true).resource!;
}

/**
 * The object key prefix of a document URI. For `vfs:///` URIs: the namespace (by
 * resource type), then the path with any leading `wh/<name>/` removed and `/`
 * replaced by `_` (as Amber's VFSURIFactory does). Any other string is taken as a
 * plain key prefix (handy in small scenarios) and must itself be a valid key.
 */
export function uriToKey(uri: string): string {
  if (typeof uri === 'string' && uri.startsWith('vfs:')) {
    const p = parseVfs(uri, true);
    return checkKey(`${p.resource}/${p.segments.join('_')}`);
  }
  const problem = keyProblem(uri);
  if (problem !== undefined) throw new StorageKeyError(`document URI: ${problem}`);
  return uri;
}

/** Why `uri` cannot address a document, or `undefined`. */
export function uriProblem(uri: unknown): string | undefined {
  try {
    uriToKey(uri as string);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
