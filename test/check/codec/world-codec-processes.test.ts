// The world codec across two processes, as exchange mode uses it (src/check/exchange*.ts):
// one child process encodes the worlds a bfs reaches in built-in scenarios and writes the
// bytes to files; another child, sharing nothing with it but those files, decodes them with
// its own build of the scenario and its own codec. Every decoded world has the fingerprint
// (plain and symmetric) the encoder computed, the same enabled steps leading to successors
// with the same fingerprints, and re-encodes to the same bytes. The single-process round
// trips are in test/check/codec/world-codec.test.ts; this covers what one process cannot: object
// identities, interned strings and module state that differ between the two ends.
// amber-loop's worlds hold Arrow record batches: they cross as their classes and parts
// (src/check/codec/arrow-classes.ts) and must behave alike in the other process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, '..', '..', 'helpers', 'world-codec.child.mjs');
const dir = mkdtempSync(join(tmpdir(), 'interleave-codec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Seen {
  fp: string;
  sym: string;
  steps: string[];
  bytes: string;
}
type Report = ({ worlds: Seen[] } | { refused: string })[];

const CASES = [
  // Symmetric clients: most worlds' canonical fingerprint differs from the plain one.
  { family: 'lost-update', params: { clients: '3' }, limit: 300 },
  { family: 'lost-update', params: { design: 'compare-and-set', clients: '3' }, limit: 300 },
  { family: 'airflow-checkpoints', params: { items: '3', taskConcurrency: '2' }, limit: 150 },
  { family: 'materialize-peeks', params: {}, limit: 150 },
  { family: 'ping-pong', params: {}, limit: 8 },
  { family: 'amber-loop', params: {}, limit: 50 },
  // Commits of state rows: their Arrow IPC bytes must not depend on what the process encoded before.
  { family: 'amber-loop', params: { design: 'read-at-endchannel', topology: 'nested', rows: '3' }, limit: 300 },
];

function child(mode: 'encode' | 'decode'): Report {
  const r = spawnSync(process.execPath, [CHILD, mode, dir, JSON.stringify(CASES)], { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 110_000 });
  expect(r.status, `${mode}: ${r.error?.message ?? ''}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

describe('world codec between two processes', () => {
  it('worlds encoded in one process decode in another to the same fingerprints, steps, successors and bytes, Arrow record batches included', () => {
    const sent = child('encode');
    const got = child('decode');
    expect(got.length).toBe(CASES.length);
    let permuted = 0;
    for (const [i, c] of CASES.entries()) {
      const at = `${c.family} ${JSON.stringify(c.params)}`;
      const a = sent[i]!;
      const b = got[i]!;
      if (!('worlds' in a) || !('worlds' in b)) throw new Error(`${at}: refused: ${JSON.stringify([a, b])}`);
      // Not vacuous: many worlds, each with somewhere to go (all but the ends).
      expect(a.worlds.length, at).toBe(c.limit);
      expect(a.worlds.filter((w) => w.steps.length > 0).length, at).toBeGreaterThan(a.worlds.length / 2);
      expect(b.worlds, at).toEqual(a.worlds);
      permuted += a.worlds.filter((w) => w.sym !== w.fp).length;
    }
    expect(permuted).toBeGreaterThan(100);
  });
});
