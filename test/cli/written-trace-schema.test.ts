// The traces `check` writes match the published schema: the command writes them without
// loading the schema's validator, so this is where their shape is held to it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateTraceFile } from 'interleave';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import { plain } from '../../src/report/style.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-written-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet: Io = { out: () => {}, err: () => {}, style: plain, errStyle: plain, tty: false };

describe('traces written by check', () => {
  it.each(['lost-update', 'amber-loop', 'rally'])('%s: the written trace validates against the schema', async (name) => {
    const out = join(dir, `${name}.json`);
    expect(await main(['check', name, '--out', out], quiet)).toBe(1);
    const r = validateTraceFile(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(r.ok ? '' : r.error).toBe('');
  });
});
