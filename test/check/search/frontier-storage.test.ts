// The compact bfs frontier's storage. The entry log (src/check/entry-log.ts): parents
// and step positions read back exactly, including the escapes (a jump past 254
// childless entries, a position past 254) and across span and chunk boundaries; a
// parent that goes back is refused. The record queue (src/check/record-queue.ts):
// records come out as they went in, first in first out, and read chunks are dropped.
import { describe, expect, it } from 'vitest';
import { rng } from 'interleave';
import { EntryLog } from '../../../src/check/search/entry-log.ts';
import { RecordQueue } from '../../../src/check/search/record-queue.ts';

describe('EntryLog', () => {
  it('reads back every parent and step position (200,000 seeded entries)', () => {
    const r = rng(7);
    const log = new EntryLog();
    const parents: number[] = [];
    const vias: number[] = [];
    const wrong: number[] = [];
    let p = -1;
    for (let e = 0; e < 200_000; e++) {
      // Roots first, then parents that never decrease: mostly small steps, sometimes long jumps.
      if (e >= 3) {
        const roll = r.int(1000);
        p += roll < 700 ? 0 : roll < 997 ? 1 : roll < 999 ? r.int(300) : 254 + r.int(3);
        if (p >= e) p = e - 1;
      }
      const via = r.int(100) < 3 ? 250 + r.int(2000) : r.int(12);
      parents.push(p);
      vias.push(via);
      if (log.push(p, via) !== e) wrong.push(e);
    }
    expect(log.count).toBe(200_000);
    for (let e = 0; e < log.count; e++) if (log.parent(e) !== parents[e] || log.via(e) !== vias[e]) wrong.push(e);
    expect(wrong).toEqual([]);
    expect(new Set(parents.slice(3).map((x, i) => x - parents[i + 2]!)).has(255)).toBe(true);
    // About 2 bytes an entry (the last chunk is not full).
    expect(log.bytes / log.count).toBeLessThan(3);
  });

  it('refuses a parent before the previous one', () => {
    const log = new EntryLog();
    log.push(-1, 0);
    log.push(0, 1);
    expect(() => log.push(-1, 0)).toThrow(/internal: bfs entry 2 has parent -1/);
  });
});

describe('RecordQueue', () => {
  it('gives back seeded records of any length in order, holding only the unread chunks', () => {
    const r = rng(11);
    const q = new RecordQueue();
    const pending: number[][] = [];
    const wrong: string[] = [];
    let live = 0,
      maxLive = 0,
      maxBytes = 0,
      n = 0;
    for (let round = 0; round < 20_000; round++) {
      // Bursts of writes and reads, so the queue grows and drains; now and then a record longer than a chunk.
      const writes = round < 10_000 ? r.int(4) : r.int(2);
      for (let i = 0; i < writes; i++) {
        const len = r.int(5000) === 0 ? 40_000 + r.int(10) : 1 + r.int(12);
        const rec = Array.from({ length: len }, () => r.int(65536));
        rec[0] = len;
        const c = q.reserve(len);
        let k = q.writeAt;
        for (const x of rec) c[k++] = x;
        q.commit(k);
        pending.push(rec);
        live += len * 2;
      }
      for (let i = r.int(4); i > 0 && pending.length > 0; i--) {
        const c = q.peek();
        const want = pending.shift()!;
        live -= want.length * 2;
        if (!c) {
          wrong.push(`record ${n} missing`);
          break;
        }
        let k = q.readAt;
        const len = c[k]!;
        const got = Array.from(c.subarray(k, k + len));
        k += len;
        q.take(k);
        if (got.join() !== want.join()) wrong.push(`record ${n}`);
        n++;
      }
      maxLive = Math.max(maxLive, live);
      maxBytes = Math.max(maxBytes, q.bytes - live);
    }
    while (pending.length > 0) {
      const c = q.peek()!;
      const want = pending.shift()!;
      const k = q.readAt;
      if (Array.from(c.subarray(k, k + c[k]!)).join() !== want.join()) wrong.push(`record ${n}`);
      q.take(k + c[k]!);
      n++;
    }
    expect(wrong).toEqual([]);
    expect(n).toBeGreaterThan(17_000);
    expect(q.peek()).toBeUndefined();
    // Beyond the unread records: the chunk being read, the one being written, and the
    // unused ends of chunks (a record never straddles two), well under the records.
    expect(maxBytes).toBeLessThan(3 * 65536 + maxLive / 10);
    expect(q.bytes).toBeLessThanOrEqual(2 * 40_010);
  });
});
