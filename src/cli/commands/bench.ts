// `interleave bench [name]`: runs bench/<name>.bench.ts through bin/bench.js.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../check/trace/package-info.ts';
import { EXIT, UsageError } from '../errors.ts';

export function runBench(names: readonly string[], extra: readonly string[]): Promise<number> {
  const script = join(PACKAGE_ROOT, 'bin', 'bench.js');
  // The published package ships no benchmarks (bench/ and bin/bench.js stay in the repository).
  if (!existsSync(script)) return Promise.reject(new UsageError('the benchmarks run from a clone of the interleave repository (npm run bench -- <name>); the installed package does not include them'));
  return new Promise((done) => {
    const child = spawn(process.execPath, [script, ...names, ...extra], { stdio: 'inherit' });
    child.on('error', () => done(EXIT.usage));
    child.on('exit', (code, signal) => done(signal ? EXIT.interrupted : (code ?? 1)));
  });
}
