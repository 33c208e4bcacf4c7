// The shared vocabulary of the value codec (codec/value-encode.ts, codec/value-decode.ts): type tags,
// integrity flags and the built-in classes it carries.

export const T_UNDEF = 0,
  T_NULL = 1,
  T_TRUE = 2,
  T_FALSE = 3,
  T_INT = 4,
  T_F64 = 5,
  T_ASCII = 6,
  T_U16 = 7,
  T_DICT = 8,
  T_BIGINT = 9,
  T_ARRAY = 10,
  T_HOLE = 11,
  T_OBJECT = 12,
  T_NULLPROTO = 13,
  T_MAP = 14,
  T_SET = 15,
  T_DATE = 16,
  T_TYPED = 17,
  T_BUFFER = 18,
  T_STUB = 20,
  T_ERROR = 21,
  T_KNOWN = 23,
  T_ARROW = 24;

/** Tags below this are primitives: a value starting with one has no identity to intern. */
export const FIRST_OBJECT_TAG = T_ARRAY;

// Integrity of an object, carried as a flag (immer freezes what it produces; a machine
// that mutates a frozen context throws, so frozen-ness is behaviour).
export const EXTENSIBLE = 0,
  NON_EXTENSIBLE = 1,
  SEALED = 2,
  FROZEN = 3;

export function integrity(o: object): number {
  if (Object.isExtensible(o)) return EXTENSIBLE;
  // V8 calls an empty sealed array frozen, though its length stays writable.
  if (Object.isFrozen(o) && !(Array.isArray(o) && Object.getOwnPropertyDescriptor(o, 'length')!.writable)) return FROZEN;
  return Object.isSealed(o) ? SEALED : NON_EXTENSIBLE;
}

export function seal(o: object, flags: number): void {
  if (flags === FROZEN) Object.freeze(o);
  else if (flags === SEALED) Object.seal(o);
  else if (flags === NON_EXTENSIBLE) Object.preventExtensions(o);
}

export const TYPED_KINDS: readonly (new (b: ArrayBuffer, off: number, len: number) => ArrayBufferView)[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  DataView,
];
export const BUFFER_KIND = TYPED_KINDS.length;
export const DATAVIEW_KIND = TYPED_KINDS.indexOf(DataView);
export const typedKind = new Map<object, number>(TYPED_KINDS.map((c, i) => [c.prototype, i]));
typedKind.set(Buffer.prototype, BUFFER_KIND);

export const ERROR_KINDS: readonly ErrorConstructor[] = [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError];
export const errorKind = new Map<object, number>(ERROR_KINDS.map((c, i) => [c.prototype, i]));
