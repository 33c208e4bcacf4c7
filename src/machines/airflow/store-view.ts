// The task state store as the airflow properties see it: the entries under a key,
// the batch keys present, the contiguous durable prefix (parsed once per stored row
// and computed once per store state: the checker asks for them at every step).
import type { WorldQuery } from '../../actors/index.ts';
import { scopeRowId, taskStateObjectKey } from '../../storage/task-state.ts';
import { SCOPE, shardOf, shardsOf, type ApiState } from './api.ts';
import { batchNumber, type AirflowConfig, type Entry } from './config.ts';

const parsed = new WeakMap<object, Entry[] | undefined>();
const batchCache = new WeakMap<object, number[]>();

/** Reads the store: the entries under a key, or undefined when missing (parsed once per stored row). */
export function storedEntries(q: WorldQuery, cfg: AirflowConfig, key: string): Entry[] | undefined {
  const id = cfg.backend === 'database' ? scopeRowId(SCOPE, key) : taskStateObjectKey('state', SCOPE, key);
  const api = q.context('supervisor') as ApiState;
  const row = (api.shards === null ? api.ts : api.shards[shardOf(key, api.shards.length)]!).rows[id];
  if (row === undefined) return undefined;
  if (parsed.has(row)) return parsed.get(row);
  const v = JSON.parse(row.value);
  const out = Array.isArray(v) ? v.map((x: any): Entry => ({ i: x.i, s: x.s, t: x.t })) : undefined;
  parsed.set(row, out);
  return out;
}

/** Batch numbers present in the store, sorted (computed once per store state). */
export function batchKeys(q: WorldQuery): number[] {
  const api = q.context('supervisor') as ApiState;
  const id: object = api.shards ?? api.ts;
  const hit = batchCache.get(id);
  if (hit) return hit;
  const all = shardsOf(api);
  const ns: number[] = [];
  for (const id of all.flatMap((sh) => Object.keys(sh.rows))) {
    const key = id.startsWith('[') ? (JSON.parse(id) as unknown[])[4] : id.slice(id.lastIndexOf('/') + 1);
    const n = batchNumber(String(key));
    if (n >= 0) ns.push(n);
  }
  ns.sort((a, b) => a - b);
  batchCache.set(id, ns);
  return ns;
}

/** Length of the contiguous durable prefix {0..k-1}. */
export function prefixLength(q: WorldQuery): number {
  const ns = new Set(batchKeys(q));
  let k = 0;
  while (ns.has(k)) k++;
  return k;
}

/** Whether (i, success or skipped, t) is still stored where it was confirmed, within the first `prefix` batches. */
export function stillStored(q: WorldQuery, cfg: AirflowConfig, key: string, i: number, t: number, prefix = prefixLength(q)): boolean {
  const n = batchNumber(key);
  if (n >= 0 && n >= prefix) return false;
  return (storedEntries(q, cfg, key) ?? []).some((e) => e.i === i && e.t === t && e.s !== 'up_for_retry');
}
