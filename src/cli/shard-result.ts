// The result file of one shard (`interleave check --result FILE`), read back by
// `interleave merge`. Written atomically (a temporary file renamed over the target), so
// a killed shard leaves the old file or none, never half of one. Fields: docs/sharding.md.
import { readFileSync } from 'node:fs';
import type { TraceFileData } from '../report/index.ts';
import type { CheckResult, PropertyRef } from './check-api.ts';
import { UsageError } from './errors.ts';

export const RESULT_KIND = 'interleave-check-result';
export const RESULT_SCHEMA_VERSION = 1;

export interface ShardResultFile {
  schemaVersion: 1;
  kind: typeof RESULT_KIND;
  tool: { name: 'interleave'; version: string };
  /** The scenario as `check` was given it: name, every parameter (defaults included), module if a user's. */
  scenario: { name: string; params: Record<string, unknown>; module?: string };
  strategy: string;
  /** 1-based like --shard i/n; i = n = 1 for a check that was not sharded. */
  shard: {
    i: number;
    n: number;
    /** Absent: the no-communication mode (a shared prefix); `exchange`: shards exchanged worlds; `share-visited`: shards shared visited fingerprints (docs/sharding.md). */
    mode?: 'exchange' | 'share-visited';
    /** Exchange and shared-visited modes: the run's id, the same in every shard of the run. */
    runId?: string;
    /** Shared-visited mode: the claims this shard sent and received, the frontier worlds it started, and who stopped the run early, if one did. */
    shareVisited?: { claimsSent: number; claimsReceived: number; foreign: number; duplicate: number; rootsStarted: { own: number; others: number }; rootsSkipped: number; rootsWoken: number; claimsMarked: number; stoppedBy?: string };
    /** Exchange mode: this shard's traffic, and who stopped the run early, if one did. */
    exchange?: {
      worldsSent: number;
      bytesSent: number;
      batchesSent: number;
      worldsReceived: number;
      worldsReceivedNew: number;
      /** Received worlds this shard already had (another shard sent it too, or it reached it itself): the duplicated transfers. */
      worldsReceivedDuplicate?: number;
      /** How worlds got their owner: `fingerprint` or `actor:<id>` (one actor's snapshot). */
      owner?: string;
      /** The shard (1-based) that sampled the owner choice, once per run; the others read it from the run directory. Absent when nothing was sampled. */
      ownerSampledBy?: number;
      /** Process start to the first owned world: wall ms and the process's CPU ms by then. */
      startup?: { ms: number; cpuMs: number };
      /** Distinct worlds this shard owns per second of its process's CPU. */
      statesPerCpuSecond?: number;
      stoppedBy?: string;
    };
    prefix?: number;
    prefixDepth?: number;
    prefixStates?: number;
    frontier?: number;
    roots?: number;
    partitionDepth?: number;
  };
  /** Options that change what a shard explores: shards of one check must agree on them. */
  options: { por: boolean; symmetry: boolean; maxDepth?: number; maxStates?: number; timeLimitMs?: number };
  ok: boolean;
  complete: boolean;
  cutBy?: string;
  interrupted: boolean;
  stats: CheckResult['stats'];
  /** CPU time of this process (user + system, ms), for cost accounting across machines. */
  cpuMs: number;
  /** sha256 of the sorted 64-bit fingerprints this shard visited (other shards' frontier worlds left out). */
  fingerprintDigest: string;
  distinctFingerprints: number;
  /** `reachable` properties no world of this shard satisfied. */
  unreached: string[];
  /**
   * The `reachable` goals a complete search must reach (not marked `optional`; none under
   * symmetry, which visits one permutation of a world): `merge` fails when no shard reached one.
   */
  requiredGoals?: string[];
  violation: null | { property: PropertyRef; steps: number; trace: TraceFileData };
}

/** The fingerprints as 16 hex digits a line (sorted), for comparing shards with one search. */
export function fingerprintLines(fps: BigUint64Array): string {
  let out = '';
  for (const x of fps) out += `${x.toString(16).padStart(16, '0')}\n`;
  return out;
}

/** Reads and checks one result file; a problem is a UsageError naming the file. */
export function readResult(path: string): ShardResultFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${path} is not JSON (${(e as Error).message}); pass the files 'interleave check --result' wrote`);
  }
  const d = doc as Partial<ShardResultFile> | null;
  if (!d || typeof d !== 'object' || d.kind !== RESULT_KIND) throw new UsageError(`${path} is not a check result (kind '${RESULT_KIND}'); pass the files 'interleave check --result' wrote`);
  if (d.schemaVersion !== RESULT_SCHEMA_VERSION) throw new UsageError(`${path} has result schema version ${String(d.schemaVersion)}; this interleave reads version ${RESULT_SCHEMA_VERSION}`);
  const shard = d.shard;
  if (!shard || !Number.isInteger(shard.i) || !Number.isInteger(shard.n) || shard.n < 1 || shard.i < 1 || shard.i > shard.n) throw new UsageError(`${path}: shard must be i/n with 1 ≤ i ≤ n, got ${JSON.stringify(shard)}`);
  if (!d.scenario || typeof d.scenario.name !== 'string' || typeof d.scenario.params !== 'object' || !d.tool || typeof d.tool.version !== 'string') throw new UsageError(`${path}: scenario or tool missing`);
  if (typeof d.complete !== 'boolean' || typeof d.ok !== 'boolean' || !d.stats || typeof d.fingerprintDigest !== 'string') throw new UsageError(`${path}: ok, complete, stats or fingerprintDigest missing`);
  if (!d.ok && (!d.violation || !Array.isArray(d.violation.trace?.schedule))) throw new UsageError(`${path}: ok is false but the violation's trace is missing`);
  return d as ShardResultFile;
}
