// Small pieces every simulated store shares: trace events and fault offers.
import type { ReducerContext } from '../actors/scenario.ts';
import type { Message, TraceEvent } from '../actors/types.ts';
import type { FaultOffer } from './messages.ts';

/** One storage operation as a trace event. */
export function ioEvent(ctx: ReducerContext, op: string, key: string | undefined, outcome: string, bytes?: number, detail?: Readonly<Record<string, unknown>>): TraceEvent {
  const e: { kind: 'io'; actor: string; op: string; outcome: string; key?: string; bytes?: number; detail?: Readonly<Record<string, unknown>> } = { kind: 'io', actor: ctx.self, op, outcome };
  if (key !== undefined) e.key = key;
  if (bytes !== undefined) e.bytes = bytes;
  if (detail !== undefined) e.detail = detail;
  return e;
}

/** The trace outcome of a reply: `ok`, or the status of an error reply (`403`, `404`, ...). */
export function outcomeOf(reply: Message): string {
  return typeof reply.status === 'number' && reply.type.endsWith('.error') ? String(reply.status) : 'ok';
}

/** The outcomes `offer` allows for this request, given the store's defaults and what the request can take. */
export function offered<F extends string>(
  offer: FaultOffer<F> | undefined,
  defaults: readonly F[],
  msg: Message,
  from: string,
  applicable: readonly F[],
  keyOf: () => string | undefined,
): readonly F[] {
  if (offer?.choose) return offer.choose(msg, from).filter((o) => applicable.includes(o));
  if (offer?.ops && !offer.ops.includes(msg.type)) return NONE;
  if (offer?.prefixes) {
    const k = keyOf();
    if (k === undefined || !offer.prefixes.some((p) => k.startsWith(p))) return NONE;
  }
  return (offer?.outcomes ?? defaults).filter((o) => applicable.includes(o));
}

export const NONE: readonly never[] = Object.freeze([]);

/** Copy of `rec` without `key` (shares `rec` when the key is absent). */
export function without<V>(rec: Readonly<Record<string, V>>, key: string): Readonly<Record<string, V>> {
  if (!(key in rec)) return rec;
  const next: Record<string, V> = {};
  for (const k in rec) if (k !== key) next[k] = rec[k]!;
  return next;
}

/** Copy of `rec` without every key in `keys`. */
export function withoutAll<V>(rec: Readonly<Record<string, V>>, keys: readonly string[]): Readonly<Record<string, V>> {
  if (!keys.some((k) => k in rec)) return rec;
  const drop = new Set(keys);
  const next: Record<string, V> = {};
  for (const k in rec) if (!drop.has(k)) next[k] = rec[k]!;
  return next;
}

export function isBytes(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array;
}

/**
 * An object's ETag: a digest of its bytes (FNV-1a 32-bit, then the size), the same in the
 * simulated store and the live adapters, so a recorded ETag compares with the model's. Like
 * S3's, equal bytes have equal ETags.
 */
export function etagOf(b: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return `${(h >>> 0).toString(16).padStart(8, '0')}-${b.byteLength.toString(16)}`;
}

/** Why a conditional put may not write (`PreconditionFailed`), given the object now (undefined: no object); undefined when it may. */
export function putPreconditionProblem(key: string, msg: { readonly ifMatch?: unknown; readonly ifNoneMatch?: unknown }, current: Uint8Array | undefined): string | undefined {
  if (msg.ifNoneMatch === '*' && current !== undefined) return `If-None-Match: * on '${key}', which exists (ETag ${etagOf(current)}); nothing was written`;
  if (typeof msg.ifMatch === 'string') {
    if (current === undefined) return `If-Match: ${msg.ifMatch} on '${key}', which does not exist; nothing was written`;
    const now = etagOf(current);
    if (now !== msg.ifMatch) return `If-Match: ${msg.ifMatch} on '${key}', whose ETag is ${now}; nothing was written`;
  }
  return undefined;
}

/** Why a put's condition fields are malformed, or undefined. */
export function putConditionShapeProblem(msg: { readonly ifMatch?: unknown; readonly ifNoneMatch?: unknown }): string | undefined {
  if (msg.ifNoneMatch !== undefined && msg.ifNoneMatch !== '*') return `s3.put: ifNoneMatch must be '*' (create only if missing), got ${JSON.stringify(msg.ifNoneMatch)}`;
  if (msg.ifMatch !== undefined && typeof msg.ifMatch !== 'string') return `s3.put: ifMatch must be an ETag string (from s3.get.ok or s3.head.ok), got ${JSON.stringify(msg.ifMatch)}`;
  return undefined;
}
