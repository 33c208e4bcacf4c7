// Writes a matcher's counterexample where `interleave check` would (trace JSON and HTML
// viewer) and says how to replay it.
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Scenario } from '../actors/index.ts';
import { formatViolation, toTraceFile, type CheckResult, type ScenarioSource } from '../check/index.ts';
import { modulePathFrom, writeAtomically } from '../check/trace/trace-file.ts';
import { formatHtmlPieces, reportContext, validateTraceFile } from '../report/index.ts';

export interface Written {
  /** The counterexample as numbered steps (formatViolation). */
  readonly text: string;
  /** Where the trace JSON was written (relative to the current directory when inside it). */
  readonly jsonPath?: string;
  /** How to replay it. */
  readonly replay?: string;
  /** Why the files were not written. */
  readonly error?: string;
}

export function htmlPathOf(jsonPath: string): string {
  return /\.json$/i.test(jsonPath) ? jsonPath.replace(/\.json$/i, '.html') : `${jsonPath}.html`;
}

function shown(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : resolve(path);
}

function quoted(path: string): string {
  return /^[\w./@:=+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** Writes the trace JSON and HTML of `r.violation`; `out === false` writes nothing. */
export function writeCounterexample(sc: Scenario, r: CheckResult, out: string | false | undefined, source: ScenarioSource | undefined): Written {
  const v = r.violation!;
  const text = formatViolation(v);
  if (out === false) return { text };
  const seed = v.seed ?? r.seed;
  const jsonPath = out ?? join('.interleave', `${sc.name.replace(/[^\w.-]+/g, '-')}-seed${seed}.json`);
  const base = toTraceFile(sc, v, { params: { ...(sc.params ?? {}) }, options: r.options, seed });
  // With a source, `interleave replay` can rebuild the scenario from its module (by its
  // path relative to the trace file) and export.
  let scenario: Record<string, unknown> = base.scenario;
  if (source) {
    const module = { path: modulePathFrom(jsonPath, source.module), export: source.export };
    scenario = { ...base.scenario, ...(source.params ? { params: { ...source.params } } : {}), module };
  }
  const file = JSON.parse(JSON.stringify({ ...base, scenario }));
  const ok = validateTraceFile(file, 'the trace the checker produced');
  if (!ok.ok) return { text, error: ok.error };
  try {
    writeAtomically(jsonPath, `${JSON.stringify(ok.file, null, 2)}\n`);
    writeAtomically(htmlPathOf(jsonPath), formatHtmlPieces(ok.file, reportContext(sc)));
  } catch (e) {
    return { text, error: `cannot write ${jsonPath}: ${e instanceof Error ? e.message : String(e)}; pass another { out } path` };
  }
  const path = shown(jsonPath);
  const replay =
    source
      ? `npx interleave replay ${quoted(path)}`
      : `replayTraceFile(scenario, JSON.parse(readFileSync(${JSON.stringify(path)}, 'utf8')))  (from 'interleave'; its .violation is the one above)`;
  return { text, jsonPath: path, replay };
}
