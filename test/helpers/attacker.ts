// An attacker child process for the filesystem store's race tests: started with its
// arguments, awaited until it prints 'ready', stopped with SIGKILL; its output is kept so
// a test can read how many rounds it ran and that it wrote nothing to stderr.
import { spawn, type ChildProcess } from 'node:child_process';

export interface Attacker {
  readonly proc: ChildProcess;
  /** What it printed so far on stdout and stderr. */
  output(): { out: string; err: string };
  /** Kills it and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `script` under this node with `args`; resolves once it has printed 'ready'. */
export async function startAttacker(script: string, args: readonly string[]): Promise<Attacker> {
  const proc = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.on('error', reject);
    const t = setInterval(() => out.includes('ready') && (clearInterval(t), resolve()), 5);
  });
  return {
    proc,
    output: () => ({ out, err }),
    stop: async () => {
      proc.kill('SIGKILL');
      if (proc.exitCode === null && proc.signalCode === null) await new Promise((r) => proc.once('exit', r));
    },
  };
}
