// Canonical JSON for traces: fixed key order, bytes and Arrow tables summarised by
// size and content hash, so two runs can be compared byte for byte.

function fnv1a(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function isArrowTable(v: any): boolean {
  return v !== null && typeof v === 'object' && typeof v.numRows === 'number' && v.schema && Array.isArray(v.schema.fields) && typeof v.getChild === 'function';
}

/** A plain-JSON projection of any trace payload, with keys in sorted order. */
export function toPlain(v: unknown, seen = new Set<unknown>()): unknown {
  if (v === null || v === undefined) return v ?? null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : String(v);
    case 'bigint':
      return { $bigint: v.toString() };
    case 'function':
      return { $function: (v as { name?: string }).name || 'anonymous' };
    case 'symbol':
      return String(v);
  }
  if (ArrayBuffer.isView(v)) {
    const b = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    return { $bytes: b.byteLength, fnv: fnv1a(b) };
  }
  if (seen.has(v)) return { $cycle: true };
  seen.add(v);
  try {
    if (isArrowTable(v)) {
      const t = v as any;
      return { $table: { rows: t.numRows, columns: t.schema.fields.map((f: any) => f.name) } };
    }
    if (Array.isArray(v)) return v.map((x) => toPlain(x, seen));
    if (v instanceof Map) return { $map: [...v.entries()].map(([k, x]) => [toPlain(k, seen), toPlain(x, seen)]) };
    if (v instanceof Set) return { $set: [...v].map((x) => toPlain(x, seen)) };
    const o = v as Record<string, unknown>;
    if ('machine' in o && 'value' in o && 'context' in o) {
      return { value: toPlain(o.value, seen), context: toPlain(o.context, seen), status: o.status };
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) {
      if (o[k] !== undefined) out[k] = toPlain(o[k], seen);
    }
    return out;
  } finally {
    seen.delete(v);
  }
}

/** Canonical JSON text of a value. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(toPlain(v));
}
