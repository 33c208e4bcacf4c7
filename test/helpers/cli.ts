// Runs the real `interleave` command in a child process, in a scratch directory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import { plain } from '../../src/report/style.ts';

export const BIN = fileURLToPath(new URL('../../bin/interleave.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'interleave-cli-'));
}

const baseEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  return env;
};

export function cli(args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: { ...baseEnv(), ...opts.env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the command and sends SIGINT once stderr contains `when`. */
export function cliInterrupted(args: readonly string[], opts: { cwd: string; when: string; afterMs: number }): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: baseEnv() });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (!sent && stderr.includes(opts.when)) {
        sent = true;
        setTimeout(() => child.kill('SIGINT'), opts.afterMs);
      }
    });
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`timed out; stderr: ${stderr}`));
    }, 50_000);
    child.on('exit', (code) => {
      clearTimeout(guard);
      done({ code, stdout, stderr });
    });
  });
}

/** The command in this process (main(argv, io)), output collected without colours. */
export async function runMain(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (s) => (stdout += `${s}\n`), err: (s) => (stderr += `${s}\n`), style: plain, errStyle: plain, tty: false };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/**
 * The command in this process as if run in `cwd` (relative paths in argv and in messages
 * are from there): for tests that check what a command says, where a child process would
 * only add its start-up.
 */
export async function runMainIn(cwd: string, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const back = process.cwd();
  process.chdir(cwd);
  try {
    return await runMain(...argv);
  } finally {
    process.chdir(back);
  }
}

/** Variables that choose a shard or a sharded mode: a child gets them only when a test passes them. */
const SHARD_ENV = ['INTERLEAVE_SHARD', 'INTERLEAVE_EXCHANGE', 'INTERLEAVE_SHARE_VISITED', 'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID', 'SLURM_ARRAY_TASK_COUNT'] as const;

/** The real command in a child process, not waited for (shards run side by side). */
export function startCli(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((done) => {
    const base: NodeJS.ProcessEnv = { ...baseEnv(), ...env };
    for (const k of SHARD_ENV) if (!(k in env)) delete base[k];
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: base });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
