// `interleave bench [name]`: runs bench/<name>.bench.ts through bin/bench.js.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../errors.ts';

export function runBench(names: readonly string[], extra: readonly string[]): Promise<number> {
  const script = fileURLToPath(new URL('../../../bin/bench.js', import.meta.url));
  return new Promise((done) => {
    const child = spawn(process.execPath, [script, ...names, ...extra], { stdio: 'inherit' });
    child.on('error', () => done(EXIT.usage));
    child.on('exit', (code, signal) => done(signal ? EXIT.interrupted : (code ?? 1)));
  });
}
