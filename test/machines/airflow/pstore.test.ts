// The persistent map behind the XCom keys against a plain Map, on seeded random key
// sequences that cross the size where it moves from 64 to 1,024 buckets; and old versions
// stay as they were (a world keeps its map while later worlds extend it).
import { describe, expect, it } from 'vitest';
import { rng } from 'interleave';
import { mget, mhas, mkeys, mset, pmap, type PMap } from '../../../src/machines/airflow/pstore.ts';

describe('pmap', () => {
  for (const seed of [1, 2, 3]) {
    it(`agrees with a Map over 2,500 random sets (seed ${seed}), across the growth at 1,024 keys`, () => {
      const r = rng(seed);
      let m: PMap<number> = pmap<number>();
      const ref = new Map<string, number>();
      const versions: [PMap<number>, Map<string, number>][] = [];
      for (let i = 0; i < 2500; i++) {
        const key = `return_value_${Math.floor(r.next() * 1800)}`;
        m = mset(m, key, i);
        ref.set(key, i);
        if (i % 250 === 0) versions.push([m, new Map(ref)]);
      }
      expect(ref.size).toBeGreaterThan(1024);
      expect(m.buckets).toHaveLength(1024);
      expect(m.size).toBe(ref.size);
      for (const [k, v] of ref) expect(mget(m, k)).toBe(v);
      expect(mhas(m, 'return_value_absent')).toBe(false);
      expect(mkeys(m)).toEqual([...ref.keys()].sort());
      for (const [old, oldRef] of versions) {
        expect(old.size).toBe(oldRef.size);
        expect(old.buckets).toHaveLength(oldRef.size > 1024 ? 1024 : 64);
        for (const [k, v] of oldRef) expect(mget(old, k)).toBe(v);
      }
    });
  }
});
