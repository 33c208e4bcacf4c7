// Decodes what codec/value-encode.ts wrote (see there for what is carried and why it is exact).
import { addressOf } from '../../actors/xstate-adapter.ts';
import { ByteReader } from './byte-io.ts';
import {
  BUFFER_KIND, ERROR_KINDS, T_ARRAY, T_ASCII, T_BIGINT, T_BUFFER, T_DATE, T_ERROR, T_F64, T_FALSE, T_HOLE, T_INT, T_KNOWN, T_MAP, T_NULL,
  T_DICT, T_NULLPROTO, T_OBJECT, T_SET, T_STUB, T_TRUE, T_TYPED, T_U16, T_UNDEF, T_ARROW, TYPED_KINDS, seal,
} from './value-tags.ts';
import type { ArrowClasses } from './arrow-classes.ts';

/** Decodes what `ValueWriter` wrote. */
export class ValueReader extends ByteReader {
  /** The objects `ValueWriter.known` numbers, in its order. */
  known: readonly object[] = [];
  /** The strings `ValueWriter.dict` numbers, in its order. */
  dict: readonly string[] = [];
  /** apache-arrow's classes, as `ValueWriter.arrow` numbers them. */
  arrow: ArrowClasses | undefined;


  /** Reads from `buf` at `pos`. */
  reset(buf: Uint8Array, pos = 0): void {
    if (buf !== this.buf) {
      this.buf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    this.pos = pos;
  }

  str(): string {
    const tag = this.u8();
    return this.strTagged(tag);
  }

  private strTagged(tag: number): string {
    if (tag === T_DICT) {
      const s = this.dict[this.uint()];
      if (s === undefined) throw new Error('bad dictionary string');
      return s;
    }
    const n = this.uint();
    let s: string;
    if (tag === T_ASCII) {
      const b = this.bytes(n);
      s = n < 64 ? String.fromCharCode.apply(null, b as unknown as number[]) : Buffer.from(b.buffer, b.byteOffset, n).toString('latin1');
    } else if (tag === T_U16) {
      const b = this.bytes(2 * n);
      const units = new Array<number>(n);
      for (let i = 0; i < n; i++) units[i] = b[2 * i]! | (b[2 * i + 1]! << 8);
      s = '';
      for (let i = 0; i < n; i += 4096) s += String.fromCharCode.apply(null, units.slice(i, i + 4096));
    } else throw new Error(`expected a string, found tag ${tag}`);
    return s;
  }

  value(): unknown {
    const tag = this.u8();
    switch (tag) {
      case T_UNDEF:
        return undefined;
      case T_NULL:
        return null;
      case T_TRUE:
        return true;
      case T_FALSE:
        return false;
      case T_INT: {
        const z = this.uint();
        return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      }
      case T_F64:
        return this.f64();
      case T_ASCII:
      case T_U16:
      case T_DICT:
        return this.strTagged(tag);
      case T_BIGINT: {
        const h = this.str();
        return h.startsWith('-') ? -BigInt(`0x${h.slice(1)}`) : BigInt(`0x${h}`);
      }
      case T_KNOWN: {
        const x = this.known[this.uint()];
        if (x === undefined) throw new Error('bad known-object number');
        return x;
      }
      case T_STUB: {
        const id = this.str();
        const parent = this.value() as string | undefined;
        return addressOf(id, parent);
      }
      case T_ARRAY: {
        const flags = this.u8();
        const n = this.uint();
        const a: unknown[] = new Array(n);
        for (let i = 0; i < n; i++) {
          if (this.buf[this.pos] === T_HOLE) {
            this.pos++;
            continue;
          }
          a[i] = this.value();
        }
        seal(a, flags);
        return a;
      }
      case T_OBJECT:
      case T_NULLPROTO: {
        const flags = this.u8();
        const n = this.uint();
        const o: Record<string, unknown> = tag === T_OBJECT ? {} : Object.create(null);
        for (let i = 0; i < n; i++) {
          const k = this.str();
          const x = this.value();
          if (k === '__proto__') Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
          else o[k] = x;
        }
        seal(o, flags);
        return o;
      }
      case T_MAP: {
        const flags = this.u8();
        const n = this.uint();
        const m = new Map<unknown, unknown>();
        for (let i = 0; i < n; i++) {
          const k = this.value();
          m.set(k, this.value());
        }
        seal(m, flags);
        return m;
      }
      case T_SET: {
        const flags = this.u8();
        const n = this.uint();
        const s = new Set<unknown>();
        for (let i = 0; i < n; i++) s.add(this.value());
        seal(s, flags);
        return s;
      }
      case T_DATE: {
        const flags = this.u8();
        const d = new Date(this.f64());
        seal(d, flags);
        return d;
      }
      case T_BUFFER: {
        const flags = this.u8();
        const n = this.uint();
        // A copy of exactly these bytes (Uint8Array's slice, even when the input is a Buffer).
        const b = Uint8Array.prototype.slice.call(this.bytes(n)).buffer;
        seal(b, flags);
        return b;
      }
      case T_TYPED: {
        const kind = this.u8();
        const flags = this.u8();
        const buffer = this.value() as ArrayBuffer;
        const off = this.uint();
        const len = this.uint();
        const view = kind === BUFFER_KIND ? Buffer.from(buffer, off, len) : new TYPED_KINDS[kind]!(buffer, off, len);
        seal(view, flags);
        return view;
      }
      case T_ERROR: {
        const kind = this.u8();
        const flags = this.u8();
        const e = Object.create(ERROR_KINDS[kind]!.prototype) as Error;
        const n = this.uint();
        for (let i = 0; i < n; i++) {
          const k = this.str();
          const attrs = this.u8();
          Object.defineProperty(e, k, { value: this.value(), enumerable: (attrs & 1) !== 0, writable: (attrs & 2) !== 0, configurable: (attrs & 4) !== 0 });
        }
        seal(e, flags);
        return e;
      }
      case T_ARROW: {
        const arrow = this.arrow;
        if (arrow === undefined) throw new Error('an Arrow object, but this codec has no Arrow support');
        const k = this.uint();
        if (k === arrow.vector) return new arrow.Vector(this.value() as unknown[]);
        const cls = arrow.byNumber[k];
        if (cls === undefined) throw new Error(`unknown Arrow class #${k}`);
        // Rebuilt on the class's prototype with the same own properties (defined, not assigned: a prototype may have a setter of that name).
        const o = Object.create(cls.proto) as object;
        const flags = this.u8();
        const n = this.uint();
        for (let i = 0; i < n; i++) {
          const key = this.str();
          Object.defineProperty(o, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
        }
        seal(o, flags);
        return o;
      }
      default:
        throw new Error(`unknown value tag ${tag} at byte ${this.pos - 1}`);
    }
  }
}
