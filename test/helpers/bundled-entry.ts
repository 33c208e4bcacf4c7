// A child-process entry (an example's main.ts with the sources it imports) compiled by
// esbuild into one JavaScript file, for tests that start it many times: through tsx each
// start loads and compiles ~200 TypeScript modules (about a second of CPU), compiled it
// starts in a fraction of that. The code is the same (tsx compiles with esbuild too);
// 'interleave' and its subpaths resolve to src/ as the 'interleave-source' condition makes
// them do in a clone. The ESM packages of many modules are bundled in too (as
// scripts/cli-cache.mjs bundles apache-arrow: one file loads several times faster); other
// packages (native ones such as better-sqlite3) stay external and load from node_modules.
// In every module of the repository, import.meta.url (and .dirname, .filename) is that
// source file's own, as when it runs through tsx: what a module finds next to itself (a
// recording's scenario module, the viewer's scripts, a worker's boot file) is the same.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Packages compiled into the bundle: pure ESM, and many modules each. */
const BUNDLED = new Set(['apache-arrow', 'flatbuffers', 'tslib', 'xstate', 'rxjs', 'zod']);

export interface BundledEntry {
  /** The compiled file: run it as `node <file> ...args`. */
  readonly file: string;
  remove(): void;
}

/**
 * Compiles `entry` (a .ts file exporting `main(argv): Promise<number>`) with a two-line
 * runner that sets the exit code from it, as examples/*.js do.
 */
export function bundleMain(entry: string): Promise<BundledEntry> {
  return bundle(`import { main } from ${JSON.stringify(entry)};\nprocess.exitCode = await main(process.argv.slice(2));\n`);
}

/** Compiles the program `entry` (a .ts file run for its top-level code). */
export function bundleScript(entry: string): Promise<BundledEntry> {
  return bundle(`import ${JSON.stringify(entry)};\n`);
}

/**
 * Bundles the module `source` into a fresh folder under .cache/ (inside the repository, so
 * packages resolve from its node_modules).
 */
async function bundle(source: string): Promise<BundledEntry> {
  const esbuild = createRequire(join(ROOT, 'package.json'))('esbuild') as typeof import('esbuild');
  const exportsMap = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { 'interleave-source': string }> }).exports;
  const base = join(ROOT, '.cache', 'test-bundles');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'entry-'));
  const runner = join(dir, 'runner.ts');
  writeFileSync(runner, source);
  const file = join(dir, 'main.mjs');
  await esbuild.build({
    entryPoints: [runner],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: [
      {
        name: 'interleave-source',
        setup(build) {
          build.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
            if (args.path.includes('/node_modules/') || !args.path.startsWith(ROOT)) return undefined;
            const contents = readFileSync(args.path, 'utf8')
              .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
              .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
              .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
            return { contents, loader: /ts$/.test(args.path) ? 'ts' : 'js', resolveDir: dirname(args.path) };
          });
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            const sub = /^interleave(\/.*)?$/.exec(args.path);
            if (!sub) return BUNDLED.has(args.path.split('/')[0]!) ? undefined : { external: true };
            const target = exportsMap[`.${sub[1] ?? ''}`]?.['interleave-source'];
            if (!target) return { errors: [{ text: `package.json exports no ${args.path}` }] };
            return { path: join(ROOT, target) };
          });
        },
      },
    ],
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
