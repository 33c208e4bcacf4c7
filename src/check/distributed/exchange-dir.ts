// The shared directory of an exchange run (docs/sharding.md, "Exchange mode"): the only
// channel between shards. Every file is written whole under a temporary name and
// renamed (or hard-linked, to create it only if absent), so a reader on any host sees
// a file complete or not at all, and a killed shard never leaves half of one.
//
//   run.json            what this run checks (scenario, parameters, version, shard count) and its run id
//   claim-<i>           shard i of this run has started (created once: a second start is a stale directory)
//   owner-lock          the shard that samples the owner choice (distributed/exchange-owner-share.ts)
//   owner.json          that choice, with the run id, read by every other shard
//   status-<i>.json     shard i's counters for termination detection (distributed/exchange-termination.ts)
//   in-<j>/<i>-<k>.b    the k-th batch of worlds shard i sends to shard j (distributed/exchange-transport.ts)
//   stop.json           a shard stopped the run (a violation, a budget, Ctrl-C, a silent shard)
//   done.json           a shard detected termination: the search is complete
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { linkSync, readdirSync, readFileSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { makeDir } from '../../actors/make-dir.ts';
import { writeAtomically } from '../trace/trace-file.ts';

/** File access within the run directory (names relative to it); tests wrap it to delay what others see. */
export interface DirIo {
  /** Writes the file whole: a temporary name, then a rename over `name`. */
  write(name: string, data: Uint8Array | string): void;
  /** The file's bytes, or undefined when it does not exist (yet). */
  read(name: string): Uint8Array | undefined;
  /** Creates the file whole only if no file has that name; false when one had. */
  create(name: string, data: string): boolean;
  /** Deletes the file (no error when it is gone). */
  remove(name: string): void;
  /** The names of the files in a subdirectory (empty when it does not exist): one call instead of a read per expected file. */
  list?(sub: string): string[];
  /**
   * Calls `changed` with the file's name (where known) when a file appears, changes or goes in the subdirectory (created if missing), where the
   * file system tells (inotify, FSEvents: not across hosts on NFS); returns the stop. Polls
   * stay the only signal between hosts, so a shard may wait longer between them.
   */
  watch?(sub: string, changed: (name?: string) => void): () => void;
}

/** Exchange mode cannot run (a directory of another run, one it cannot write, worlds it cannot carry): exit 2 on the CLI, with what to do. */
export class ExchangeError extends Error {
  /** `'ExchangeError'`. */
  override name = 'ExchangeError';
}

/** The real file system under `dir` (created if missing). */
export function fsDirIo(dir: string): DirIo {
  makeDir(dir);
  const made = new Set<string>();
  const tmpName = (name: string) => `${name}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const parent = (name: string) => {
    const slash = name.lastIndexOf('/');
    if (slash < 0) return;
    const sub = name.slice(0, slash);
    if (made.has(sub)) return;
    makeDir(join(dir, sub));
    made.add(sub);
  };
  return {
    write(name, data) {
      writeAtomically(join(dir, name), data);
    },
    read(name) {
      try {
        return readFileSync(join(dir, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    create(name, data) {
      parent(name);
      const tmp = join(dir, tmpName(name));
      writeFileSync(tmp, data);
      try {
        linkSync(tmp, join(dir, name));
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      } finally {
        unlinkSync(tmp);
      }
    },
    remove(name) {
      try {
        unlinkSync(join(dir, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    },
    watch(sub, changed) {
      const at = join(dir, sub);
      makeDir(at);
      try {
        const w = watch(at, { persistent: false }, (_event, name) => changed(typeof name === 'string' ? name : undefined));
        w.on('error', () => undefined);
        return () => w.close();
      } catch {
        return () => undefined;
      }
    },
    list(sub) {
      try {
        return readdirSync(join(dir, sub));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}

/** What makes two shards part of one run: they must agree on every field. */
export type RunKey = Record<string, string | number | boolean>;

interface RunFile {
  kind: 'interleave-exchange-run';
  runId: string;
  key: RunKey;
  created: string;
}

/** A stop of the whole run, by the shard that decided it. */
export interface StopNote {
  runId: string;
  /** 0-based shard that wrote it. */
  by: number;
  reason: 'violation' | 'stopped' | 'timeLimit' | 'maxStates' | 'maxDepth' | 'silent' | 'error';
  message: string;
}

const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));

function readJson<T>(io: DirIo, name: string): T | undefined {
  const t = text(io.read(name));
  return t === undefined ? undefined : (JSON.parse(t) as T);
}

/**
 * Joins (or starts) the run in the directory: the first shard writes run.json with a
 * fresh run id, the others adopt it if their key is the same. Throws ExchangeError
 * when the directory holds another run (another key), or this one already completed, or
 * this shard already started in it (a rerun into the same directory).
 */
export function joinRun(io: DirIo, where: string, index: number, count: number, key: RunKey): string {
  const mine: RunFile = { kind: 'interleave-exchange-run', runId: randomBytes(8).toString('hex'), key, created: new Date().toISOString() };
  let run: RunFile | undefined = io.create('run.json', `${JSON.stringify(mine, null, 2)}\n`) ? mine : undefined;
  // Another shard created it: on a network file system it may take a moment to be readable here.
  for (let tries = 0; !run && tries < 100; tries++) {
    try {
      run = readJson<RunFile>(io, 'run.json');
    } catch {
      run = undefined;
    }
    if (!run) sleepSync(20);
  }
  const fresh = `give every run its own empty directory (e.g. ${where}/<job id>) or delete the files in ${where}`;
  if (!run || run.kind !== 'interleave-exchange-run' || typeof run.runId !== 'string') throw new ExchangeError(`${where}/run.json is not an interleave exchange run file; ${fresh}`);
  const diff = Object.keys({ ...run.key, ...key }).filter((k) => run.key[k] !== key[k]);
  if (diff.length > 0) {
    const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));
    throw new ExchangeError(`${where} holds the files of another run (started ${run.created}): ${diff.map((k) => `${k} ${show(run.key[k])} there, ${show(key[k])} here`).join('; ')}; ${fresh}`);
  }
  // A stop is no reason to refuse: a shard that starts late after another stopped the run ends at once (incomplete).
  if (io.read('done.json')) throw new ExchangeError(`${where} holds a run of this check that already ended (run ${run.runId}, started ${run.created}); ${fresh}`);
  const claim = `claim-${index}`;
  if (!io.create(claim, `${JSON.stringify({ runId: run.runId, host: hostname(), pid: process.pid, at: new Date().toISOString() })}\n`)) {
    const other = readJson<{ host?: string; pid?: number; at?: string }>(io, claim);
    throw new ExchangeError(`shard ${index + 1}/${count} already started in ${where} (run ${run.runId}, ${other?.host ?? '?'} pid ${other?.pid ?? '?'} at ${other?.at ?? '?'}): a shard cannot rejoin a run (its visited set is gone); ${fresh} and start all ${count} shards again`);
  }
  return run.runId;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Asks every shard to stop (the first stop wins; later ones keep it). */
export function writeStop(io: DirIo, note: StopNote): void {
  io.create('stop.json', `${JSON.stringify(note)}\n`);
}

/** The stop of this run, if a shard wrote one. */
export function readStop(io: DirIo, runId: string): StopNote | undefined {
  const s = readJson<StopNote>(io, 'stop.json');
  return s && s.runId === runId ? s : undefined;
}

/** Marks the run complete (termination detected). */
export function writeDone(io: DirIo, runId: string, by: number): void {
  io.create('done.json', `${JSON.stringify({ runId, by, at: new Date().toISOString() })}\n`);
}

/** True when a shard detected termination of this run. */
export function readDone(io: DirIo, runId: string): boolean {
  return readJson<{ runId: string }>(io, 'done.json')?.runId === runId;
}

export { readJson };
