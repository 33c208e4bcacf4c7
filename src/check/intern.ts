// A bounded table of decoded values by their encoded bytes: the same bytes give the same
// object, so structures received from other processes share identity with those received
// before. Looked up by a 32-bit hash of the bytes and confirmed byte by byte (a hash alone
// could return another value). Emptied when full, like the step memo.

interface Entry {
  readonly bytes: Uint8Array;
  readonly value: unknown;
  next: Entry | undefined;
}

function hashBytes(b: Uint8Array): number {
  let h = 0x9747b28c ^ b.length;
  const n4 = b.length & ~3;
  for (let i = 0; i < n4; i += 4) {
    let k = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  for (let i = n4; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 0;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Decoded values by their bytes, at most `limit` of them. */
export class InternTable {
  private map = new Map<number, Entry>();
  private size = 0;

  constructor(private readonly limit: number) {}

  /** The entry for exactly these bytes, if held. */
  get(bytes: Uint8Array): { readonly value: unknown } | undefined {
    for (let e = this.map.get(hashBytes(bytes)); e !== undefined; e = e.next) if (sameBytes(e.bytes, bytes)) return e;
    return undefined;
  }

  /** Holds `value` for a copy of `bytes` (the caller's buffer may be reused). */
  add(bytes: Uint8Array, value: unknown): void {
    if (this.limit <= 0) return;
    if (this.size >= this.limit) {
      this.map = new Map();
      this.size = 0;
    }
    const h = hashBytes(bytes);
    this.map.set(h, { bytes: bytes.slice(), value, next: this.map.get(h) });
    this.size++;
  }
}
