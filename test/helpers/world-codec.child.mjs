// Child process for test/check/codec/world-codec-processes.test.ts: one end of a world exchange.
//   encode DIR CASES  reaches up to `limit` worlds of each case (a bfs, every step) and
//                     writes their encodings to DIR/<i>.bin (u32 length, then the bytes)
//   decode DIR CASES  decodes DIR/<i>.bin with a codec of its own
// Both print, per case, every world's plain and symmetric fingerprints, its steps with
// their successors' fingerprints, and its bytes (as encoded, or as re-encoded after the
// decode), so the test compares what two processes that share nothing but the files see.
// A case the codec refuses prints `{ refused: <the error's name and message> }`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { registerSource } from '../../scripts/source-loader.mjs';

registerSource();
const { families } = await import('../../src/machines/catalog.ts');
const { apply, enabled, parseParams } = await import('../../src/actors/index.ts');
const { WorldHasher, fpHex } = await import('../../src/check/fingerprint/fingerprint.ts');
const { createWorldCodec } = await import('../../src/check/codec/world-codec.ts');
const { reach } = await import('../fixtures/check/reach.ts');

const [mode, dir, casesJson] = process.argv.slice(2);
const cases = JSON.parse(casesJson);
if (mode === 'decode') {
  // Another history than the encoder's: apache-arrow numbers dictionaries from a process-wide
  // counter, so a model whose bytes depend on it gives other worlds here.
  const { tableFromJSON } = await import('apache-arrow');
  for (let i = 0; i < 3; i++) tableFromJSON([{ s: 'x' }]);
}

function describe(sc, w, bytes) {
  const plain = new WorldHasher(sc, false);
  const sym = new WorldHasher(sc, true);
  const steps = enabled(sc, w).map((s) => `${s.id} -> ${fpHex(plain.fp(apply(sc, w, s, { detail: false }).world))}`);
  return { fp: fpHex(plain.fp(w)), sym: fpHex(sym.fp(w)), steps, bytes: createHash('sha256').update(bytes).digest('hex') };
}

const report = [];
for (const [i, { family, params, limit }] of cases.entries()) {
  const f = families.find((x) => x.name === family);
  const sc = f.build(parseParams(f, params));
  try {
    const codec = await createWorldCodec(sc);
    const worlds = [];
    if (mode === 'encode') {
      const parts = [];
      for (const w of reach(sc, limit)) {
        const bytes = codec.encode(w);
        const len = Buffer.alloc(4);
        len.writeUInt32LE(bytes.length);
        parts.push(len, bytes);
        worlds.push(describe(sc, w, bytes));
      }
      writeFileSync(join(dir, `${i}.bin`), Buffer.concat(parts));
    } else {
      const file = readFileSync(join(dir, `${i}.bin`));
      for (let at = 0; at < file.length; ) {
        const len = file.readUInt32LE(at);
        const w = codec.decode(file.subarray(at + 4, at + 4 + len));
        at += 4 + len;
        worlds.push(describe(sc, w, codec.encode(w)));
      }
    }
    report.push({ worlds });
  } catch (e) {
    if (e?.name !== 'WorldCodecError') throw e;
    report.push({ refused: `${e.name}: ${e.message}` });
  }
}
process.stdout.write(JSON.stringify(report));
