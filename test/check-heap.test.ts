// src/check/heap.ts: the V8 flags a search sets while it runs are put back after the
// last of several concurrent searches, and left alone when node options size the heap.
import { afterEach, describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
vi.mock('node:v8', async (orig) => ({ ...(await orig<typeof import('node:v8')>()), setFlagsFromString: (f: string) => void calls.push(f) }));
const { leanHeap } = await import('../src/check/heap.ts');

afterEach(() => {
  calls.length = 0;
  delete process.env.NODE_OPTIONS;
});

describe('leanHeap', () => {
  it('sets the flags for the first search and restores V8 defaults after the last', () => {
    const a = leanHeap(true);
    const b = leanHeap(false);
    expect(calls).toEqual(['--semi-space-growth-factor=1', '--heap-growing-percent=10']);
    a();
    a(); // once only
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBe('--heap-growing-percent=0');
    b();
    expect(calls.slice(3)).toEqual(['--semi-space-growth-factor=2']);
  });

  it('leaves the heap alone when node options size it', () => {
    process.env.NODE_OPTIONS = '--max-semi-space-size=64';
    leanHeap(true)();
    process.env.NODE_OPTIONS = '--heap-growing-percent=50';
    leanHeap(true)();
    expect(calls).toEqual([]);
  });
});
