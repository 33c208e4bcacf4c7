// Hostile trace files through the real command, in a child process whose heap is
// capped at 256 MB: a 4 MB file nested 190 deep and 2,000,000 wide, a 100 MB file of
// two 50 MB strings of `<&>`, and invalid UTF-8 each exit 2 with a message naming
// the limit (or the encoding) and how to raise it, instead of a heap abort or a
// RangeError. Raising a limit lets the deep and wide file through, still within the cap.
// The traces are of a bundled scenario, so the children run the command's main from the
// compiled copy of src/ that bin/interleave.js runs for bundled checks (scripts/cli-cache.mjs)
// instead of through tsx, which would cost each of them about a second of CPU to start.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runMainIn, scratchDir } from '../helpers/cli.ts';
import { lostUpdateTrace } from '../helpers/report-traces.ts';
import { DEFAULT_TRACE_LIMITS } from 'interleave';
// @ts-expect-error a plain .mjs script without types
import { compiledCli } from '../../scripts/cli-cache.mjs';

const dir = scratchDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How a child runs the command: the compiled main, or bin/interleave.js when there is no cache (no esbuild). */
let command: string[] = [BIN];
beforeAll(async () => {
  const url = (await compiledCli(join(import.meta.dirname, '..', '..'))) as URL | undefined;
  if (url) command = ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(url.href)}); process.exitCode = await main(process.argv.slice(1));`];
});

/** The command with a 256 MB heap; a heap abort would show as a signal or exit 134, not 2. */
function capped(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ['--max-old-space-size=256', ...command, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * 1024 * 1024 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** The lost-update trace with one more log event whose data is `raw` JSON text. */
function withData(name: string, raw: string | Buffer): string {
  const f = lostUpdateTrace();
  const text = JSON.stringify({ ...f, trace: [...f.trace, { kind: 'log', step: 0, actor: 'client1', data: '@@DATA@@' }] });
  const [a, b] = text.split('"@@DATA@@"');
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from(a!), Buffer.isBuffer(raw) ? raw : Buffer.from(raw), Buffer.from(b!)]));
  return path;
}

describe('trace file limits on the command line (heap capped at 256 MB)', () => {
  const deepWide = withData('deep-wide.json', `${'['.repeat(190)}${'0,'.repeat(1_999_999)}0${']'.repeat(190)}`);

  it('a 4 MB trace nested 190 deep and 2,000,000 wide: exit 2 naming the items limit; raised, it is read within the cap', () => {
    const r = capped(['show', deepWide]);
    expect([r.code, r.signal]).toEqual([2, null]);
    expect(r.stderr).toMatch(/deep-wide\.json: an array or object with more than 1000000 items .*raise it with --trace-limit items=<n> or INTERLEAVE_TRACE_LIMITS=items=<n>/);
    // Raised, the file is parsed and validated (nesting checked node by node) within the cap;
    // replay then re-runs its schedule, which still loses an update (exit 1).
    const ok = capped(['replay', deepWide], { INTERLEAVE_TRACE_LIMITS: 'items=3000000' });
    expect([ok.code, ok.signal], ok.stderr).toEqual([1, null]);
    expect(ok.stdout).toMatch(/still fails/);
  });

  it('two 50 MB strings of <&>: exit 2 on the size limit, then on the string limit, never a RangeError', () => {
    const lt = '<&>'.repeat(16_666_667);
    const path = withData('lt.json', `["${lt}","${lt}"]`);
    const size = capped(['show', path, '--format', 'html']);
    expect([size.code, size.signal]).toEqual([2, null]);
    expect(size.stderr).toMatch(/lt\.json: 100\d{6} bytes, over the trace size limit of 67108864 bytes; raise it with --trace-limit bytes=<n>/);
    const str = capped(['replay', path, '--trace-limit', 'bytes=200M']);
    expect([str.code, str.signal]).toEqual([2, null]);
    expect(str.stderr).toMatch(/a string of 50000001 bytes at byte \d+, over the limit of 16777216 bytes per string; raise it with --trace-limit string=<n>/);
    expect(str.stderr).not.toMatch(/RangeError|heap/);
  });

  it('invalid UTF-8: exit 2, not read as U+FFFD; a bad --trace-limit: exit 2', async () => {
    const path = withData('bad-utf8.json', Buffer.from([0x22, 0xc3, 0x28, 0x22]));
    const r = capped(['show', path]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/bad-utf8\.json: not valid UTF-8 text/)]);
    // A bad flag value is a usage error, not a matter of memory: checked in this process.
    const bad = await runMainIn(dir, 'show', path, '--trace-limit', 'depth=lots');
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--trace-limit: trace limit 'depth=lots': expected <name>=<n>/)]);
  });
});

/** `unit` repeated, then `<` to make exactly `bytes` bytes of UTF-8. */
function fill(unit: string, bytes: number): string {
  const n = Math.floor(bytes / Buffer.byteLength(unit));
  return unit.repeat(n) + '<'.repeat(bytes - n * Buffer.byteLength(unit));
}

describe('show --format html at the string limit (heap capped at 256 MB)', () => {
  // One string as long as the default limit allows (16 MiB as written), in property.message:
  // `<` grows to six characters escaped (a 100 MB page); the mixed one is a two-byte string in
  // V8 with surrogate pairs, among characters that are escaped.
  for (const [name, unit] of [
    ['lt', '<'],
    ['mixed', '<ā€😀&>'],
  ] as const) {
    it(`a ${DEFAULT_TRACE_LIMITS.maxStringBytes}-byte message of ${JSON.stringify(unit)}: the page is written, and its trace reads back`, () => {
      const message = fill(unit, DEFAULT_TRACE_LIMITS.maxStringBytes);
      const f = lostUpdateTrace();
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify({ ...f, property: { ...f.property, message } }));
      const out = `${name}.html`;
      const r = capped(['show', path, '--format', 'html', '--out', out]);
      expect([r.code, r.signal], r.stderr.slice(0, 400)).toEqual([0, null]);
      const page = readFileSync(join(dir, out), 'utf8');
      rmSync(join(dir, out));
      const island = /<script type="application\/json" id="trace-data">([^<]*)<\/script>/.exec(page);
      expect(island).not.toBeNull();
      expect((JSON.parse(island![1]!) as { property: { message: string } }).property.message === message).toBe(true);
      if (name === 'mixed') {
        // To stdout, the page is written in the same pieces.
        const toStdout = capped(['show', path, '--format', 'html']);
        expect([toStdout.code, toStdout.signal, toStdout.stdout === page]).toEqual([0, null, true]);
      }
    }, 120_000);
  }

  it(`a file at the ${DEFAULT_TRACE_LIMITS.maxBytes}-byte limit, four long strings each with a character beyond Latin-1 (two bytes a character in V8): shown as HTML, and replayed`, () => {
    const f = lostUpdateTrace();
    const shell = JSON.stringify({ ...f, property: { ...f.property, message: '@M@' }, trace: [...f.trace, { kind: 'log', step: 0, actor: 'client1', data: '@D@' }] });
    // Four strings that fill the file to the byte: one message, three in the log event's data.
    const room = DEFAULT_TRACE_LIMITS.maxBytes - Buffer.byteLength(shell) + '"@M@""@D@"'.length - '[,,]'.length - 8; // 8: the quotes
    const sizes = [0, 1, 2, 3].map((i) => Math.floor(room / 4) + (i < room % 4 ? 1 : 0));
    const strings = sizes.map((n) => `ā${'x'.repeat(n - 2)}`);
    const text = shell.replace('"@M@"', JSON.stringify(strings[0])).replace('"@D@"', JSON.stringify(strings.slice(1)));
    expect(Buffer.byteLength(text)).toBe(DEFAULT_TRACE_LIMITS.maxBytes);
    const path = join(dir, 'wide.json');
    writeFileSync(path, text);
    const r = capped(['show', path, '--no-verify', '--format', 'html', '--out', 'wide.html']);
    expect([r.code, r.signal], r.stderr.slice(0, 400)).toEqual([0, null]);
    const page = readFileSync(join(dir, 'wide.html'), 'utf8');
    rmSync(join(dir, 'wide.html'));
    const island = /<script type="application\/json" id="trace-data">([^<]*)<\/script>/.exec(page);
    expect((JSON.parse(island![1]!) as { property: { message: string } }).property.message === strings[0]).toBe(true);
    // replay re-runs the schedule (the log event is not the model's, but the schedule still loses an update: exit 1).
    const rp = capped(['replay', path]);
    expect([rp.code, rp.signal], rp.stderr.slice(0, 400)).toEqual([1, null]);
  }, 120_000);
});
