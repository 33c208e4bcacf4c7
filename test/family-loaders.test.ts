// src/machines/family-loaders.ts loads one catalog family without the others; its names
// must stay those of the catalog (a family added to one list and not the other fails here).
import { describe, expect, it } from 'vitest';
import { families } from '../src/machines/catalog.ts';
import { familyNames, loadFamily } from '../src/machines/family-loaders.ts';

describe('family loaders', () => {
  it('name every catalog family, in the same order, and load the same object', async () => {
    expect(familyNames).toEqual(families.map((f) => f.name));
    for (const f of families) expect(await loadFamily(f.name)).toBe(f);
  });
  it('know no other name', () => {
    expect(loadFamily('no-such-family')).toBeUndefined();
    expect(loadFamily('constructor')).toBeUndefined();
  });
});
