// The CLI's compiled cache in a clone of the repository. Loading ~270 TypeScript files
// through tsx's loader hooks costs the main job more than its search, so bin/interleave.js
// runs a per-file esbuild compile of src/ (the compiler tsx itself uses; imports stay
// separate modules, so nothing is bundled twice) kept in .cache/interleave-cli, keyed by
// every source file's path, size and modification time: an edit makes a new key, and the
// next run compiles again (about half a second). Concurrent runs each write their own
// temporary folder and rename it into place; the loser keeps the winner's copy. Not under
// node_modules: a new entry there makes npm's hidden lockfile stale, and every later npx
// then reads the whole installed tree (about 0.1 s). Packages still resolve from it: the
// repository's node_modules is on the way up.
// apache-arrow's ESM build is ~150 modules, which load several times slower than the same
// code as one file, so the cache also holds it bundled (one chunk shared by every arrow
// specifier src/ imports, so there is one copy of its classes). Only runs that load no
// user module use the cache, so no other copy of arrow can meet this one.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Bump when what the cache holds changes shape, so old copies are not used. */
const RECIPE = 3;
/** Copies under other keys are removed once older than this (a long check may still load modules from one), */
const STALE_MS = 24 * 60 * 60 * 1000;
/** except the newest few, whatever their age. */
const KEEP = 4;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/** Two 32-bit FNV-1a hashes (different offsets) of every file's path, size and mtime: node:crypto costs more to load than this takes. */
function keyOf(root, sources) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const add = (text) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
    }
  };
  add(`recipe ${RECIPE} node ${process.versions.node}\n`);
  for (const f of [...sources, join(root, 'tsconfig.json'), join(root, 'package.json')]) {
    const s = statSync(f);
    add(`${relative(root, f)} ${s.size} ${s.mtimeMs}\n`);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

function prune(cache, keep) {
  const now = Date.now();
  const entries = [];
  for (const name of readdirSync(cache)) {
    try {
      entries.push({ name, mtimeMs: statSync(join(cache, name)).mtimeMs });
    } catch {
      // another run removed it first
    }
  }
  entries.sort((x, y) => y.mtimeMs - x.mtimeMs);
  for (const [i, e] of entries.entries()) {
    if (e.name === keep || i < KEEP || now - e.mtimeMs <= STALE_MS) continue;
    rmSync(join(cache, e.name), { recursive: true, force: true });
  }
}

/**
 * One bundle of apache-arrow (`apache-arrow.js`), and for each subpath the sources import
 * a module that re-exports its names from that bundle, so every specifier shares one copy.
 */
async function vendorArrow(esbuild, root, vendored, outDir) {
  const subpaths = [...vendored.keys()].filter((s) => s !== 'apache-arrow');
  const entry = [`export * from 'apache-arrow';`, ...subpaths.map((s, i) => `export * as __subpath${i} from '${s}';`)].join('\n');
  await esbuild.build({
    stdin: { contents: entry, resolveDir: root, loader: 'js' },
    outfile: join(outDir, 'apache-arrow.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  const req = createRequire(join(root, 'package.json'));
  for (const [i, s] of subpaths.entries()) {
    const names = Object.keys(await import(pathToFileURL(req.resolve(s).replace(/\.js$/, '.mjs')).href)).filter((n) => n !== 'default');
    const lines = [`import { __subpath${i} as m } from './apache-arrow.js';`, ...names.map((n) => `export const ${n} = m.${n};`)];
    writeFileSync(join(outDir, `${vendored.get(s)}.js`), `${lines.join('\n')}\n`);
  }
}

/** Every apache-arrow specifier the sources import, each with its bundle's file name. */
function arrowSpecifiers(files) {
  const specs = new Set();
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import\()\s*['"](apache-arrow(?:\/[^'"]*)?)['"]/g)) specs.add(m[1]);
  }
  return new Map([...specs].sort().map((s) => [s, s.replace(/[^A-Za-z0-9]+/g, '-')]));
}

/**
 * The URL of the compiled `cli/main.js` for the sources under `root`/src, compiling them
 * into `cache` first when it has no copy for their current key; undefined when esbuild is not
 * installed or the compile fails (the caller then runs the sources through tsx, which
 * reports the error in the source's own terms).
 */
export async function compiledCli(root, cache = join(root, '.cache', 'interleave-cli')) {
  const src = join(root, 'src');
  const sources = [...files(src)].filter((f) => !f.endsWith('.md')).sort();
  const key = keyOf(root, sources);
  const dir = join(cache, key);
  const main = join(dir, 'cli', 'main.js');
  if (existsSync(join(dir, '.complete'))) return pathToFileURL(main);
  let esbuild;
  try {
    esbuild = createRequire(join(root, 'package.json'))('esbuild');
  } catch {
    return undefined;
  }
  const tmp = join(cache, `${key}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    const ts = sources.filter((f) => f.endsWith('.ts'));
    const vendored = arrowSpecifiers(ts);
    const vendorDir = join(src, '.vendor');
    if (vendored.size > 0) await vendorArrow(esbuild, root, vendored, join(tmp, '.vendor'));
    await esbuild.build({
      entryPoints: ts,
      outdir: tmp,
      outbase: src,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      plugins: [
        {
          name: 'one-module-per-file',
          setup(b) {
            b.onResolve({ filter: /^\.\.?\// }, (a) => (a.kind === 'entry-point' ? undefined : { path: a.path.replace(/\.ts$/, '.js'), external: true }));
            b.onResolve({ filter: /^apache-arrow(\/|$)/ }, (a) => {
              const name = vendored.get(a.path);
              if (name === undefined) return { errors: [{ text: `${a.path} is not in the vendored arrow bundle` }] };
              const to = relative(dirname(a.importer), join(vendorDir, `${name}.js`)).split('\\').join('/');
              return { path: to.startsWith('.') ? to : `./${to}`, external: true };
            });
          },
        },
      ],
    });
    for (const f of sources.filter((f) => !f.endsWith('.ts'))) {
      const to = join(tmp, relative(src, f));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(f, to);
    }
    writeFileSync(join(tmp, '.complete'), '');
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(join(dir, '.complete'))) return undefined;
    }
    prune(cache, key);
    return pathToFileURL(main);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
    return undefined;
  }
}
