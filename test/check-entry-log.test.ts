// The compact bfs frontier's entry log (src/check/entry-log.ts): parents and step
// positions read back exactly, including the escapes (a jump past 254 childless
// entries, a position past 254) and across span and chunk boundaries; a parent
// that goes back is refused.
import { describe, expect, it } from 'vitest';
import { rng } from '../src/actors/index.ts';
import { EntryLog } from '../src/check/entry-log.ts';

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
