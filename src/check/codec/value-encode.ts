// Exact binary form of the values a world holds (contexts, reducer states, messages,
// monitor states), for moving worlds between processes (codec/world-codec.ts). Exact means
// the decoded value is indistinguishable to a pure machine: same types, same key
// order, -0, NaN bits, holes, undefined entries, frozen/sealed objects, typed arrays
// with their whole buffer and window, the kernel's address stubs and the objects both
// ends hold by identity. What cannot be carried exactly (functions, symbols, accessors,
// class instances the codec does not know, cycles) is refused with the path to the
// value, never dropped or approximated. Arrow objects cross as their class and parts
// (codec/arrow-classes.ts).
//
// The bytes of a value depend only on its content (no back-references), so the bytes
// of every object are cached by identity and a new context costs only its changed
// parts. The price: an object reachable twice inside one value decodes as two equal
// objects (a DAG becomes a tree); codec/README.md says why nothing depends on that.
import { isAddressStub } from '../../actors/xstate-adapter.ts';
import { ByteWriter } from './byte-io.ts';
import {
  DATAVIEW_KIND, EXTENSIBLE, FROZEN, NON_EXTENSIBLE, T_ARRAY, T_ASCII, T_BIGINT, T_BUFFER, T_DATE, T_ERROR, T_F64, T_FALSE, T_HOLE, T_INT, T_KNOWN, T_MAP,
  T_DICT, T_NULL, T_NULLPROTO, T_OBJECT, T_SET, T_STUB, T_TRUE, T_TYPED, T_U16, T_UNDEF, T_ARROW, errorKind, integrity, typedKind,
} from './value-tags.ts';
import { arrowClassName, type ArrowClasses } from './arrow-classes.ts';

/** A value the codec cannot carry exactly; `path` is filled in as the error unwinds. */
export class Refusal extends Error {
  override name = 'Refusal';
  readonly path: string[] = [];
}

function refuse(what: string): never {
  throw new Refusal(what);
}

/** Prefixes the path of a refusal thrown below `seg`. */
function under(e: unknown, seg: string): unknown {
  if (e instanceof Refusal) e.path.unshift(seg);
  return e;
}

function keySeg(k: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
}

function isXstateSnapshot(o: object): boolean {
  const r = o as Record<string, unknown>;
  return 'machine' in r && 'context' in r && 'value' in r && typeof r.matches === 'function';
}

const PLAIN_DATA = 'the codec carries plain data only (primitives, plain objects, arrays, Map, Set, Date, Error, typed arrays, ArrayBuffer, address stubs and Arrow objects)';

/** Why an object of this prototype cannot move, in words (`arrow`: whether Arrow support is loaded). */
function classRefusal(o: object, arrow: boolean): string {
  const name = (o as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
  if (o instanceof WeakMap || o instanceof WeakSet || (typeof WeakRef === 'function' && o instanceof WeakRef)) {
    return `a ${name} cannot move between shards (its entries cannot be read); keep state in a Map or a plain object`;
  }
  if (o instanceof Promise) return 'a Promise cannot move between shards; model the pending work as a message whose reply is a step';
  const arrowName = arrowClassName(o);
  if (arrowName && !arrow) {
    return `an Arrow ${arrowName} cannot move between shards here: Arrow support is loaded only when the scenario's initial world or its actors' inputs hold an Arrow object, and this one's do not; give an actor one as input (its input table, say), or check this model without --exchange`;
  }
  if (arrowName) return `an Arrow ${arrowName} of another apache-arrow copy than the one interleave loads cannot move between shards; make the model and interleave resolve one apache-arrow`;
  if (typeof SharedArrayBuffer === 'function' && o instanceof SharedArrayBuffer) return 'a SharedArrayBuffer cannot move between shards; use an ArrayBuffer';
  return `an instance of class ${name} cannot move between shards: ${PLAIN_DATA}; store its data instead`;
}

/** Below this depth no cycle check is made (a cycle shows up as depth; checking is O(depth)). */
const CYCLE_CHECK_DEPTH = 64;
/** Deeper nesting is refused before the stack runs out. */
const MAX_DEPTH = 1000;
/** Objects whose bytes are at least this long keep them in the identity cache. */
const BLOCK_MIN = 24;
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * Encodes values. `checked` remembers objects whose shape was validated and `blocks` their
 * bytes (world values are immutable, as the fingerprint caches already assume).
 */
export class ValueWriter extends ByteWriter {
  private readonly checked = new WeakMap<object, number>();
  private blocks = new WeakMap<object, string>();
  private depth = 0;
  /** The objects being encoded, outermost first (for the cycle check). */
  private readonly path: object[] = [];
  /** Objects both ends hold (see codec/world-codec.ts): carried by number, so they keep their identity. */
  known: ReadonlyMap<object, number> | undefined;
  /** Strings both ends hold (keys and strings of the initial world): carried by number. */
  dict: ReadonlyMap<string, number> | undefined;
  /** apache-arrow's classes, when the scenario's worlds hold Arrow objects (codec/arrow-classes.ts). */
  arrow: ArrowClasses | undefined;



  /** Forgets the bytes cached by identity (written before `known` and `dict` were set, they would differ). */
  forgetBlocks(): void {
    this.blocks = new WeakMap();
  }

  reset(): void {
    this.pos = 0;
    this.depth = 0;
    this.path.length = 0;
  }

  str(s: string): void {
    const d = this.dict?.get(s);
    if (d !== undefined) {
      this.u8(T_DICT);
      this.uint(d);
      return;
    }
    const n = s.length;
    const ascii = n < 32 ? isAscii(s) : !NOT_ASCII.test(s);
    this.u8(ascii ? T_ASCII : T_U16);
    this.uint(n);
    if (ascii) {
      this.ensure(n);
      const buf = this.buf;
      let p = this.pos;
      if (n < 32) for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
      else p += buf.latin1Write(s, p);
      this.pos = p;
    } else {
      // UTF-16 code units as they are: lone surrogates survive (UTF-8 would replace them).
      this.ensure(2 * n);
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        this.buf[this.pos++] = c & 0xff;
        this.buf[this.pos++] = c >>> 8;
      }
    }
  }

  /** Encodes `v` without keeping its own bytes in the identity cache (the caller keeps them). */
  root(v: unknown): void {
    if (typeof v === 'object' && v !== null && this.known?.get(v) === undefined && !isAddressStub(v)) this.fresh(v);
    else this.value(v);
  }

  value(v: unknown): void {
    switch (typeof v) {
      case 'undefined':
        this.u8(T_UNDEF);
        return;
      case 'boolean':
        this.u8(v ? T_TRUE : T_FALSE);
        return;
      case 'number':
        if ((v | 0) === v && !(v === 0 && 1 / v < 0)) {
          this.u8(T_INT);
          this.uint(v >= 0 ? v * 2 : -v * 2 - 1);
        } else {
          this.u8(T_F64);
          this.f64(v);
        }
        return;
      case 'string':
        this.str(v);
        return;
      case 'bigint':
        this.u8(T_BIGINT);
        this.str(v.toString(16));
        return;
      case 'function':
        refuse(`a function${(v as { name?: string }).name ? ` ('${(v as { name?: string }).name}')` : ''} cannot move between shards: keep behaviour in the machine and only data in its context, messages and reducer states`);
      // eslint-disable-next-line no-fallthrough
      case 'symbol':
        refuse(`a symbol (${String(v)}) cannot move between shards: it has no identity outside its process; use a string`);
    }
    if (v === null) {
      this.u8(T_NULL);
      return;
    }
    this.object(v as object);
  }

  private object(o: object): void {
    const known = this.known?.get(o);
    if (known !== undefined) {
      this.u8(T_KNOWN);
      this.uint(known);
      return;
    }
    const block = this.blocks.get(o);
    if (block !== undefined) {
      this.latin1(block);
      return;
    }
    if (isAddressStub(o)) {
      // Stubs are process-wide singletons (one per id): carried by name, restored by identity.
      this.u8(T_STUB);
      this.str(o.id);
      this.value(o._parent?.id);
      return;
    }
    const start = this.pos;
    this.fresh(o);
    if (this.pos - start >= BLOCK_MIN) this.blocks.set(o, this.text(start));
  }

  private fresh(o: object): void {
    if (++this.depth > CYCLE_CHECK_DEPTH) {
      if (this.path.includes(o)) refuse('a cycle (an object inside itself) cannot move between shards, nor be fingerprinted; refer to the outer object by an id');
      if (this.depth > MAX_DEPTH) refuse(`nesting deeper than ${MAX_DEPTH} levels cannot move between shards; flatten the structure`);
    }
    this.path.push(o);
    this.contents(o);
    this.path.pop();
    this.depth--;
  }

  private contents(o: object): void {
    // Records and arrays are validated at each fresh encode (cheaper than remembering them:
    // a WeakMap entry costs more than the checks); other objects once.
    let flags: number | undefined;
    if (Array.isArray(o)) {
      flags = checkArray(o);
      this.u8(T_ARRAY);
      this.u8(flags);
      const n = o.length;
      this.uint(n);
      for (let i = 0; i < n; i++) {
        if (!(i in o)) {
          this.u8(T_HOLE);
          continue;
        }
        try {
          this.value(o[i]);
        } catch (e) {
          throw under(e, `[${i}]`);
        }
      }
      return;
    }
    const proto = Object.getPrototypeOf(o);
    if (proto === Object.prototype || proto === null) {
      this.u8(proto === null ? T_NULLPROTO : T_OBJECT);
      this.record(o as Record<string, unknown>);
      return;
    }
    const arrow = this.arrow;
    if (arrow !== undefined && (arrow.numbers.has(proto) || o instanceof arrow.Vector)) {
      this.arrowObject(o, proto, arrow);
      return;
    }
    flags = this.checked.get(o);
    if (flags === undefined) this.checked.set(o, (flags = this.checkOther(o, proto)));
    if (proto === Map.prototype) {
      const m = o as Map<unknown, unknown>;
      this.u8(T_MAP);
      this.u8(flags);
      this.uint(m.size);
      let i = 0;
      for (const [k, x] of m) {
        try {
          this.value(k);
          this.value(x);
        } catch (e) {
          throw under(e, `<Map entry ${i}>`);
        }
        i++;
      }
      return;
    }
    if (proto === Set.prototype) {
      const s = o as Set<unknown>;
      this.u8(T_SET);
      this.u8(flags);
      this.uint(s.size);
      let i = 0;
      for (const x of s) {
        try {
          this.value(x);
        } catch (e) {
          throw under(e, `<Set element ${i}>`);
        }
        i++;
      }
      return;
    }
    if (proto === Date.prototype) {
      this.u8(T_DATE);
      this.u8(flags);
      this.f64((o as Date).getTime());
      return;
    }
    if (proto === ArrayBuffer.prototype) {
      const b = new Uint8Array(o as ArrayBuffer);
      this.u8(T_BUFFER);
      this.u8(flags);
      this.uint(b.length);
      this.bytes(b);
      return;
    }
    const kind = typedKind.get(proto);
    if (kind !== undefined) {
      const view = o as ArrayBufferView;
      this.u8(T_TYPED);
      this.u8(kind);
      this.u8(flags);
      // The whole buffer, so views sharing one (and code reading `.buffer`) see the same bytes.
      this.value(view.buffer);
      this.uint(view.byteOffset);
      this.uint(kind === DATAVIEW_KIND ? view.byteLength : (view as Uint8Array).length);
      return;
    }
    const ek = errorKind.get(proto);
    if (ek !== undefined) {
      this.u8(T_ERROR);
      this.u8(ek);
      this.u8(flags);
      const names = Object.getOwnPropertyNames(o);
      this.uint(names.length);
      for (const k of names) {
        const d = Object.getOwnPropertyDescriptor(o, k)!;
        this.str(k);
        this.u8((d.enumerable ? 1 : 0) | (d.writable ? 2 : 0) | (d.configurable ? 4 : 0));
        try {
          this.value(d.value);
        } catch (e) {
          throw under(e, keySeg(k));
        }
      }
      return;
    }
    refuse(classRefusal(o, this.arrow !== undefined));
  }

  /**
   * An Arrow object: its class's number, then a Vector's data (it is rebuilt from them), or any
   * other's own properties as a plain record's (the same checks: data properties only).
   */
  private arrowObject(o: object, proto: object, arrow: ArrowClasses): void {
    this.u8(T_ARROW);
    if (o instanceof arrow.Vector) {
      for (const k of Object.keys(o)) if (!arrow.vectorKeys.has(k)) refuse(`an Arrow Vector with own property '${k}' cannot move between shards: a Vector is carried as its data; keep extra data beside it`);
      this.uint(arrow.vector);
      try {
        this.value((o as { data: unknown }).data);
      } catch (e) {
        throw under(e, '.data');
      }
      return;
    }
    this.uint(arrow.numbers.get(proto)!);
    this.record(o as Record<string, unknown>);
  }

  /** A record's integrity, then its own enumerable data properties in order (refused: anything else). */
  private record(r: Record<string, unknown>): void {
    const keys = Object.keys(r);
    this.u8(checkRecord(r, keys));
    this.uint(keys.length);
    for (const k of keys) {
      this.str(k);
      try {
        this.value(r[k]);
      } catch (e) {
        throw under(e, keySeg(k));
      }
    }
  }

  /** Validates a built-in object (Map, Set, Date, buffers, typed arrays, errors). */
  private checkOther(o: object, proto: object): number {
    const known = proto === Map.prototype || proto === Set.prototype || proto === Date.prototype || proto === ArrayBuffer.prototype;
    const typed = typedKind.has(proto);
    if (!known && !typed && !errorKind.has(proto)) refuse(classRefusal(o, this.arrow !== undefined));
    if (proto === ArrayBuffer.prototype && (o as { resizable?: boolean }).resizable) refuse('a resizable ArrayBuffer cannot move between shards exactly; use a fixed-length one');
    if (known) {
      const extra = Reflect.ownKeys(o);
      if (extra.length > 0) refuse(`a ${(o as object).constructor.name} with own property '${String(extra[0])}' cannot move between shards: only its entries are carried; keep extra data beside it`);
    }
    if (errorKind.has(proto)) {
      for (const k of Reflect.ownKeys(o)) {
        if (typeof k === 'symbol') refuse(`an Error with a symbol-keyed property (${String(k)}) cannot move between shards`);
        if (Object.getOwnPropertyDescriptor(o, k)!.get !== undefined || Object.getOwnPropertyDescriptor(o, k)!.set !== undefined) {
          refuse(`an Error with an accessor property '${k}' cannot move between shards`);
        }
      }
    }
    return integrity(o);
  }
}

/** Data properties only, enumerable, string-keyed, attributes as the integrity flag says. */
function checkRecord(o: Record<string, unknown>, keys: readonly string[]): number {
  const flags = integrity(o);
  if (Object.getOwnPropertyNames(o).length !== keys.length) {
    const hidden = Object.getOwnPropertyNames(o).find((k) => !keys.includes(k))!;
    refuse(`a non-enumerable property '${hidden}' cannot move between shards: the codec carries enumerable data properties`);
  }
  const symbols = Object.getOwnPropertySymbols(o);
  if (symbols.length > 0) refuse(`a symbol-keyed property (${String(symbols[0])}) cannot move between shards; use a string key`);
  for (const k of keys) checkDescriptor(Object.getOwnPropertyDescriptor(o, k)!, k, flags);
  if ('machine' in o && isXstateSnapshot(o)) refuse('an xstate snapshot inside a value cannot move between shards: only an actor\'s own snapshot is carried (the kernel keeps every actor flat in the world)');
  return flags;
}

function checkArray(a: unknown[]): number {
  const flags = integrity(a);
  const names = Object.getOwnPropertyNames(a);
  let present = 0;
  for (let i = 0; i < a.length; i++) {
    if (!(i in a)) continue;
    present++;
    checkDescriptor(Object.getOwnPropertyDescriptor(a, i)!, `[${i}]`, flags);
  }
  // Own names are the present indices and 'length'; anything else is a named property.
  if (names.length !== present + 1) {
    const named = names.find((k) => k !== 'length' && !(String(Number(k)) === k && Number(k) >= 0))!;
    refuse(`an array with a named property '${named}' cannot move between shards: only its elements are carried; use an object`);
  }
  const symbols = Object.getOwnPropertySymbols(a);
  if (symbols.length > 0) refuse(`an array with a symbol-keyed property (${String(symbols[0])}) cannot move between shards`);
  return flags;
}

function checkDescriptor(d: PropertyDescriptor, k: string | number, flags: number): void {
  if (d.get !== undefined || d.set !== undefined) refuse(`an accessor property '${k}' (getter/setter) cannot move between shards: store the value instead`);
  if (!d.enumerable) refuse(`a non-enumerable property '${k}' cannot move between shards: the codec carries enumerable data properties`);
  const wantWritable = flags !== FROZEN;
  const wantConfigurable = flags === EXTENSIBLE || flags === NON_EXTENSIBLE;
  if (d.writable !== wantWritable || d.configurable !== wantConfigurable) {
    refuse(`property '${k}' is ${d.writable ? '' : 'read-only '}${d.configurable ? '' : 'non-configurable '}on an object that is not frozen or sealed as a whole; the codec carries integrity per object (freeze or seal the whole object)`);
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}
