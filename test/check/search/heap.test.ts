// src/check/heap.ts: the V8 flags a search sets while it runs are put back after the
// last of several concurrent searches, and left alone when node options size the heap.
import { afterEach, describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
vi.mock('node:v8', async (orig) => ({ ...(await orig<typeof import('node:v8')>()), setFlagsFromString: (f: string) => void calls.push(f) }));
const { OLD_GROWTH, leanHeap } = await import('../../../src/check/search/heap.ts');

afterEach(() => {
  calls.length = 0;
  delete process.env.NODE_OPTIONS;
});

describe('leanHeap', () => {
  it('sets the flags for the first search and restores V8 defaults after the last', () => {
    const a = leanHeap(OLD_GROWTH.compactBfs);
    const b = leanHeap(undefined);
    expect(calls).toEqual(['--semi-space-growth-factor=1', '--heap-growing-percent=10']);
    a();
    a(); // once only
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBe('--heap-growing-percent=0');
    b();
    expect(calls.slice(3)).toEqual(['--semi-space-growth-factor=2']);
  });

  it('concurrent searches: the old generation follows the tightest growth of those running', () => {
    const dfs = leanHeap(OLD_GROWTH.dfs);
    const bfs = leanHeap(OLD_GROWTH.compactBfs);
    const dfs2 = leanHeap(OLD_GROWTH.dfs);
    expect(calls).toEqual(['--semi-space-growth-factor=1', '--heap-growing-percent=50', '--heap-growing-percent=10']);
    bfs();
    expect(calls.slice(3)).toEqual(['--heap-growing-percent=50']);
    dfs();
    expect(calls).toHaveLength(4);
    dfs2();
    expect(calls.slice(4)).toEqual(['--semi-space-growth-factor=2', '--heap-growing-percent=0']);
  });

  it('leaves the heap alone when node options size it', () => {
    process.env.NODE_OPTIONS = '--max-semi-space-size=64';
    leanHeap(OLD_GROWTH.dfs)();
    process.env.NODE_OPTIONS = '--heap-growing-percent=50';
    leanHeap(OLD_GROWTH.dfs)();
    expect(calls).toEqual([]);
  });
});
