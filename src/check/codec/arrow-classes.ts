// The Arrow classes the value codec carries (codec/value-encode.ts): apache-arrow's data
// types, Field, Schema, Data, RecordBatch, Table and Vector. An instance crosses as its
// class's number and its own properties, and is rebuilt on its class's prototype with the
// same properties, so a decoded Int32 is an Int32 (an IPC round trip would rebuild it as a
// generic Int, and apache-arrow compares types with `instanceof`). A Vector holds closures
// over its data, so it crosses as its data and is rebuilt with `new Vector(data)`.
// apache-arrow is loaded only for scenarios whose initial world holds an Arrow object.

/** The carried classes, numbered alike at both ends (by export name). */
export interface ArrowClasses {
  /** Each carried class's prototype and its number. */
  readonly numbers: ReadonlyMap<object, number>;
  /** By number: the prototype and the export name. */
  readonly byNumber: readonly { readonly proto: object; readonly name: string }[];
  /** apache-arrow's Vector: chunked vectors take per-type prototypes, so it is tested with `instanceof`. */
  readonly Vector: new (data: readonly unknown[]) => object;
  /** The number of Vector. */
  readonly vector: number;
  /** Own properties a Vector may hold: anything else would be lost, so it is refused. */
  readonly vectorKeys: ReadonlySet<string>;
}

const STRUCTURES = ['Field', 'Schema', 'Data', 'RecordBatch', 'Table', 'Vector'];

/** The class names that mark an object as Arrow's (a bundler may prefix them: `_RecordBatch`). */
const ARROW_NAME = /^_?(RecordBatch|Table|Schema|Field|Data|Vector|DataType)$/;

/** The Arrow class `o` is an instance of (a data type counts as `DataType`), if it looks like one: found without loading apache-arrow. */
export function arrowClassName(o: object): string | undefined {
  let p: unknown = Object.getPrototypeOf(o);
  for (let depth = 0; depth < 4 && typeof p === 'object' && p !== null && p !== Object.prototype; depth++) {
    const name = (p as { constructor?: { name?: unknown } }).constructor?.name;
    const m = typeof name === 'string' ? ARROW_NAME.exec(name) : null;
    if (m) return m[1];
    p = Object.getPrototypeOf(p);
  }
  return undefined;
}

/** True when `o` looks like an apache-arrow object. */
export function looksLikeArrow(o: object): boolean {
  return arrowClassName(o) !== undefined;
}

/** Loads apache-arrow and numbers its carried classes. */
export async function loadArrowClasses(): Promise<ArrowClasses> {
  const arrow = (await import('apache-arrow')) as unknown as Record<string, unknown> & { DataType: { prototype: object }; Vector: ArrowClasses['Vector'] };
  const names = Object.keys(arrow)
    .filter((k) => {
      const c = arrow[k];
      if (typeof c !== 'function' || typeof c.prototype !== 'object' || c.prototype === null) return false;
      return STRUCTURES.includes(k) || c === arrow.DataType || c.prototype instanceof (arrow.DataType as unknown as new () => object);
    })
    .sort();
  const byNumber = names.map((name) => ({ proto: (arrow[name] as { prototype: object }).prototype, name }));
  return {
    numbers: new Map(byNumber.map((c, i) => [c.proto, i])),
    byNumber,
    Vector: arrow.Vector,
    vector: names.indexOf('Vector'),
    vectorKeys: new Set(['isValid', 'get', 'set', 'indexOf', '_offsets', 'data', 'type', 'stride', 'numChildren', 'length']),
  };
}
