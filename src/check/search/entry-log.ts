// The compact bfs frontier's log of every entry ever pushed (search/bfs-compact.ts): its
// parent entry and the position of its step among the parent's enabled steps, about
// 2 bytes an entry instead of 6 in plain typed arrays (a search of a million states
// pushes over a million entries, and keeps them all for schedules).
//
// - Parents never decrease: bfs pushes every entry while expanding the entry at its
//   head, in order (roots first, parent -1). So a byte per entry holds the step up
//   from the previous entry's parent (mostly 0 or 1), and an Int32 every `SPAN`
//   entries holds the parent itself; `parent(e)` adds at most SPAN - 1 bytes.
// - A step position fits a byte almost always (worlds rarely have 255 enabled steps).
// - Values that do not fit (a jump past 254 childless entries, a position past 254)
//   are kept in a Map beside the byte ESCAPE.
// - Bytes live in fixed-size chunks, so growing never copies the log (a copy would
//   briefly hold it twice, at the moment the search is largest).

const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const SPAN_BITS = 5;
const SPAN = 1 << SPAN_BITS;
const ESCAPE = 0xff;

export class EntryLog {
  private ups: Uint8Array[] = [];
  private vias: Uint8Array[] = [];
  /** The parent of every SPAN-th entry. */
  private anchors = new Int32Array(1024);
  private bigUp = new Map<number, number>();
  private bigVia = new Map<number, number>();
  private lastParent = -1;
  count = 0;

  /** Bytes held (the chunks and anchors; escapes not counted). */
  get bytes(): number {
    return (this.ups.length + this.vias.length) * CHUNK + this.anchors.byteLength;
  }

  /** Appends an entry (`parent` -1 for a root) and returns its number. */
  push(parent: number, via: number): number {
    const e = this.count++;
    if (parent < this.lastParent) throw new Error(`internal: bfs entry ${e} has parent ${parent}, before the previous entry's parent ${this.lastParent}`);
    const c = e >>> CHUNK_BITS;
    if (c === this.ups.length) {
      this.ups.push(new Uint8Array(CHUNK));
      this.vias.push(new Uint8Array(CHUNK));
    }
    const i = e & (CHUNK - 1);
    if ((e & (SPAN - 1)) === 0) {
      const a = e >>> SPAN_BITS;
      if (a === this.anchors.length) {
        const b = new Int32Array(a * 2);
        b.set(this.anchors);
        this.anchors = b;
      }
      this.anchors[a] = parent;
    } else {
      const up = parent - this.lastParent;
      if (up < ESCAPE) this.ups[c]![i] = up;
      else {
        this.ups[c]![i] = ESCAPE;
        this.bigUp.set(e, up);
      }
    }
    if (via < ESCAPE) this.vias[c]![i] = via;
    else {
      this.vias[c]![i] = ESCAPE;
      this.bigVia.set(e, via);
    }
    this.lastParent = parent;
    return e;
  }

  parent(e: number): number {
    const first = e & ~(SPAN - 1);
    let p = this.anchors[first >>> SPAN_BITS]!;
    // A span never crosses a chunk (CHUNK is a multiple of SPAN).
    const ups = this.ups[e >>> CHUNK_BITS]!;
    const base = first & (CHUNK - 1);
    for (let i = base + 1, end = e & (CHUNK - 1); i <= end; i++) {
      const u = ups[i]!;
      p += u === ESCAPE ? this.bigUp.get(first + (i - base))! : u;
    }
    return p;
  }

  via(e: number): number {
    const v = this.vias[e >>> CHUNK_BITS]![e & (CHUNK - 1)]!;
    return v === ESCAPE ? this.bigVia.get(e)! : v;
  }
}
