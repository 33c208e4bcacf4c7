// `interleave show <trace.json>`: a saved trace as text, Mermaid, HTML or JSON. The
// file's schedule is re-run first, so an edited schedule next to a stale trace is
// refused rather than drawn.
import { statSync } from 'node:fs';
import { writeAtomically } from '../../check/trace/trace-file.ts';
import { FORMATS, RenderTooLargeError, formatHtmlPieces, formatText, render, reportContext, type Format, type ReportContext, type TraceFileData } from '../../report/index.ts';
import { toPlain, type Scenario, type ScenarioFamily } from '../../actors/index.ts';
import { EXIT, UsageError } from '../errors.ts';
import type { Io } from '../io.ts';
import { firstDifference, rerunTrace, scenarioOfTrace, type Rerun } from '../trace-rerun.ts';
import { readTrace, traceLimits } from '../read-trace.ts';
import { statusLine } from '../progress.ts';

const BY_EXT: Record<string, Format> = { '.html': 'html', '.htm': 'html', '.mmd': 'mermaid', '.mermaid': 'mermaid', '.json': 'json', '.txt': 'text' };

export interface ShowFlags {
  format?: string;
  out?: string;
  /** false with --no-verify: render the file as saved, without re-running its schedule. */
  verify?: boolean;
  config?: string;
  /** --trace-limit name=value (trace/trace-file.ts). */
  traceLimit?: string[];
}

export async function runShow(io: Io, path: string, flags: ShowFlags): Promise<number> {
  const ext = flags.out ? /\.[^./\\]+$/.exec(flags.out)?.[0]?.toLowerCase() : undefined;
  const format = (flags.format ?? (ext ? BY_EXT[ext] : undefined) ?? 'text') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`unknown format '${flags.format}'; formats: ${FORMATS.join(', ')}`);
  // A large trace takes seconds to read, re-run and render: on a terminal a line says which.
  const status = statusLine(io.tty, `show ${path}`);
  status.update('reading the trace', true);
  const read = readTrace(path, traceLimits(flags.traceLimit));
  status.update(flags.verify !== false ? `re-running its ${read.schedule.length.toLocaleString('en-US')} steps on the scenario` : 'loading the scenario', true);
  let found;
  try {
    found = flags.verify !== false ? await verify(io, read, path, flags.config) : await scenarioQuietly(read, path, flags.config);
  } finally {
    status.stop();
  }
  // A streamed live recording has no events, and an older trace has no reducer state changes:
  // draw the model's replay of it (which otherwise matches the file).
  const replayed = (r: Rerun) => r.trace.map((e) => toPlain(e)) as TraceFileData['trace'];
  const file: TraceFileData = !found?.rerun
    ? read
    : read.options.mode !== 'live'
      ? { ...read, trace: replayed(found.rerun) }
      : read.trace.length === 0
        ? { ...read, schedule: [...found.rerun.schedule], originalLength: found.rerun.schedule.length, trace: replayed(found.rerun) }
        : read;
  // The scenario's legend, charts and parameter defaults explain the trace (text, Mermaid, HTML).
  const ctx: ReportContext = found && format !== 'json' ? reportContext(found.sc, found.family.params) : {};
  status.update(`rendering ${format}`, true);
  try {
    if (flags.out) {
      // HTML goes to the file piece by piece: its escaped trace may not fit the heap as one string.
      writeOut(flags.out, format === 'html' ? formatHtmlPieces(file, ctx) : render(file, format, ctx));
      io.err(`wrote ${format} to ${flags.out}`);
    } else if (format === 'html' && io.write) {
      for (const piece of formatHtmlPieces(file, ctx)) io.write(piece);
    } else {
      io.out(format === 'text' ? formatText(file, io.style, ctx) : render(file, format, ctx));
    }
  } catch (e) {
    if (e instanceof RenderTooLargeError) throw new UsageError(`${path}: ${e.message}`);
    if (e instanceof RangeError && /string length/i.test(e.message)) throw new UsageError(`${path}: the trace is too large to render as ${format} in one string (${e.message}); try another --format, or a smaller trace`);
    throw e;
  } finally {
    status.stop();
  }
  return EXIT.ok;
}

type Found = { readonly sc: Scenario; readonly family: ScenarioFamily; readonly rerun?: Rerun };

/** The trace's scenario when it can be built (for `--no-verify`: only to explain the drawing). */
async function scenarioQuietly(file: TraceFileData, path: string, config?: string): Promise<Found | undefined> {
  try {
    const { sc, target } = await scenarioOfTrace(file, path, config);
    return { sc, family: target.family };
  } catch (e) {
    if (e instanceof UsageError) return undefined;
    throw e;
  }
}

/** Refuses a file whose trace is not what its schedule produces; says so when it cannot tell. */
async function verify(io: Io, file: TraceFileData, path: string, config?: string): Promise<Found | undefined> {
  let sc, target;
  try {
    ({ sc, target } = await scenarioOfTrace(file, path, config));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(io.errStyle.yellow(`note: cannot verify the trace against its scenario (${e.message.replace(`${path}: `, '')}); showing it as saved`));
    return undefined;
  }
  const out = await rerunTrace(file, path, sc);
  // A live recording's trace holds what really happened (store I/O, real replies): its
  // schedule replaying is the check; its events are not the model's.
  if (file.options.mode === 'live') return { sc, family: target.family, rerun: out };
  // A trace saved before reducers' state changes were recorded (`context` events) is compared
  // without them, and drawn from the re-run, which has them.
  const older = !file.trace.some((e) => e.kind === 'context') && out.trace.some((e) => e.kind === 'context');
  const d = firstDifference(file.trace, older ? out.trace.filter((e) => e.kind !== 'context') : out.trace);
  if (d) {
    throw new UsageError(
      `${path}: the saved trace is not what its schedule produces (they differ from step ${d.step}, event ${d.index + 1}): the file was edited, or the model changed since it was saved. ` +
        `'interleave replay ${path}' re-checks the schedule; 'interleave show --no-verify' draws the file as saved`,
    );
  }
  return { sc, family: target.family, ...(older ? { rerun: out } : {}) };
}

/**
 * Writes the rendering through a temporary file and a rename (a killed process leaves the
 * old file or none, never half of one); a place that cannot hold it is bad input (exit 2), not a crash.
 */
export function writeOut(out: string, text: string | Iterable<string>): void {
  try {
    if (/[/\\]$/.test(out) || statSync(out, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(`--out ${out} is a directory; give a file name, e.g. --out ${out.replace(/[/\\]$/, '')}/trace.html`);
    }
    writeAtomically(out, text);
  } catch (e) {
    if (e instanceof UsageError || e instanceof RenderTooLargeError || (e instanceof RangeError && /string length/i.test(e.message))) throw e;
    const code = (e as { code?: string }).code;
    const why =
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'permission denied (a read-only place)'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a part of the path is a file, not a directory'
          : e instanceof Error
            ? e.message
            : String(e);
    throw new UsageError(`cannot write ${out}: ${why}; choose another place with --out FILE`);
  }
}
