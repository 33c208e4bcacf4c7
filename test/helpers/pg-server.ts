// A real PostgreSQL for the tests: the server binaries (initdb, pg_ctl) started in a
// temporary data directory on a loopback port, as the `postgres` user when the tests
// run as root (the server refuses root), and stopped with its files removed. One per
// test file. Without the binaries the tests skip with a message, except under CI (the
// CI variable set), where that is a failure: .ci/run installs them.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

function findBin(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/local/bin', '/usr/lib/postgresql'];
  for (const d of dirs) if (d && existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl'))) return d;
  // Debian's package keeps them per major version, off the PATH.
  if (existsSync('/usr/lib/postgresql')) {
    for (const v of readdirSync('/usr/lib/postgresql').sort().reverse()) {
      const d = join('/usr/lib/postgresql', v, 'bin');
      if (existsSync(join(d, 'initdb'))) return d;
    }
  }
  return undefined;
}

/** Where initdb and pg_ctl are, if anywhere. */
export const PG_BIN = findBin();

/**
 * Whether the PostgreSQL tests can run: true with the binaries; without them a skip
 * (with the reason printed) outside CI, and an error under CI.
 */
export function pgAvailable(file: string): boolean {
  if (PG_BIN !== undefined) return true;
  const why = `no PostgreSQL server binaries (initdb, pg_ctl) on the PATH, in /usr/local/bin or /usr/lib/postgresql/*/bin: install them (apt-get install -y postgresql) to run ${file}`;
  if (process.env.CI) throw new Error(`CI is set, so the PostgreSQL tests must run: ${why}`);
  console.warn(`skipped: ${why}`);
  return false;
}

export interface LocalPg {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  /** Stops the server (immediately: nothing in it is kept) and removes its files. */
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The OS user the server runs as: this one, or `postgres` (else `nobody`) when this is root. */
function serverUser(): { name: string; uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { stdio: 'pipe' }).toString());
      const gid = Number(execFileSync('id', ['-g', name], { stdio: 'pipe' }).toString());
      return { name, uid, gid };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run the PostgreSQL server as (it refuses root): create one (useradd -r postgres)');
}

export async function startPg(): Promise<LocalPg> {
  if (PG_BIN === undefined) throw new Error('no PostgreSQL server binaries (see pgAvailable)');
  const dir = mkdtempSync(join(tmpdir(), 'interleave-pg-'));
  const data = join(dir, 'data');
  const user = serverUser();
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const run = (bin: string, args: string[]) => {
    const cmd = join(PG_BIN!, bin);
    return user ? execFileSync('runuser', ['-u', user.name, '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' });
  };
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    run('pg_ctl', ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`, 'start']);
  } catch (e) {
    const err = (e as { stderr?: Buffer }).stderr?.toString() ?? '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL from ${PG_BIN}: ${(e as Error).message}\n${err}`);
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // A test run stopped before its afterAll (a timeout, Ctrl-C) leaves no server behind.
  process.on('exit', stop);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      stop();
    },
  };
}
