// The trace file: a saved counterexample, versioned and validated on read, so a
// hand-edited, truncated or future file is refused with the field that is wrong.
// zod is loaded on the first validation, not with the package: most programs that import
// interleave (a test file, a check) never read a trace file, and zod is the largest module
// graph the root entry would otherwise load.
import { createRequire } from 'node:module';
import type { z as Zod } from 'zod';
import { isLiveLog, liveLogTrace } from '../check/trace/live-log.ts';
import { parseJsonBytes } from './parse-json-bytes.ts';
import { DEFAULT_TRACE_LIMITS, raiseHint, traceBytesProblem, traceSizeProblem, type TraceLimits } from './trace-limits.ts';

/** The trace file format version this package writes and reads. */
export const TRACE_SCHEMA_VERSION = 1;

/** The trace event kinds a trace file may hold. */
export const EVENT_KINDS = ['deliver', 'send', 'output', 'state', 'context', 'timer-set', 'timer-fire', 'timer-cancel', 'tick', 'fault', 'emit', 'unhandled', 'error', 'dropped', 'io', 'log', 'monitor-fail'] as const;
type EventKind = (typeof EVENT_KINDS)[number];

/** The trace file's zod schemas, built with `z` (each event kind's fields, an event, a file). */
function buildSchemas(z: typeof Zod) {
  const str = z.string();
  const num = z.number();
  /** A message after `toPlain`: an object with a string `type` and any payload. */
  const message = z.looseObject({ type: str });

  const eventFields = {
    deliver: { from: str, to: str, msg: message, outcome: str.optional() },
    send: { from: str, to: str, msg: message },
    output: { from: str, msg: message },
    state: { actor: str, from: str, to: str, changed: z.record(z.string(), z.unknown()).optional() },
    context: { actor: str, changed: z.record(z.string(), z.unknown()) },
    'timer-set': { actor: str, id: str, due: num, msg: message },
    'timer-fire': { actor: str, id: str, at: num, msg: message },
    'timer-cancel': { actor: str, id: str },
    tick: { at: num },
    fault: { fault: str, actor: str, detail: str.optional() },
    emit: { actor: str, msg: message },
    unhandled: { actor: str, from: str, msg: message, state: str },
    error: { actor: str, message: str },
    dropped: { from: str, to: str, msg: message, reason: str },
    io: { actor: str, op: str, key: str.optional(), outcome: str, bytes: num.optional(), detail: z.record(z.string(), z.unknown()).optional() },
    log: { actor: str, data: z.unknown() },
    'monitor-fail': { monitor: str, message: str },
  } as const satisfies Record<EventKind, unknown>;

  const byKind: Record<string, Zod.ZodType> = Object.fromEntries(Object.entries(eventFields).map(([k, f]) => [k, z.looseObject(f)]));

  /**
   * One recorded event. Known kinds are checked field by field; an unknown kind is
   * kept as it is (a newer kernel may add kinds within the same schema version) and
   * rendered generically.
   */
  const eventSchema = z
    .looseObject({ kind: str.min(1), step: z.number().int().min(0) })
    .superRefine((e, ctx) => {
      const s = byKind[e.kind];
      if (!s) return;
      const r = s.safeParse(e);
      if (!r.success) for (const iss of r.error.issues) ctx.addIssue({ code: 'custom', message: iss.message, path: iss.path as PropertyKey[] });
    });

  const propertySchema = z.object({ name: str.min(1), kind: str.min(1), message: str });

  const traceFileSchema = z
    .object({
      schemaVersion: z.literal(TRACE_SCHEMA_VERSION),
      kind: z.literal('interleave-trace'),
      tool: z.object({ name: z.literal('interleave'), version: str }),
      scenario: z.object({
        name: str.min(1),
        params: z.record(z.string(), z.unknown()),
        /** A user's scenario: its module (path relative to the trace file) and export, for replay and show. */
        module: z.object({ path: str.min(1), export: str.min(1) }).optional(),
      }),
      options: z.record(z.string(), z.unknown()),
      seed: z.number().int(),
      property: propertySchema.nullable(),
      schedule: z.array(str),
      originalLength: z.number().int().min(0),
      inputs: z.array(z.object({ index: z.number().int().min(0), from: str, to: str, msg: z.unknown() })).optional(),
      trace: z.array(eventSchema),
      passing: z.object({ schedule: z.array(str), trace: z.array(eventSchema), note: str.optional() }).optional(),
      /** A liveness lasso: schedule[cycleStart..] is a cycle back to the world after schedule[..cycleStart] (absent: a finite run). */
      cycleStart: z.number().int().min(0).optional(),
      /** Found around a recording: per step, its recorded position (1-based) or how it deviates; and the recorded steps it covers. */
      recorded: z
        .object({
          from: str.optional(),
          length: z.number().int().min(0),
          steps: z.array(z.object({ recorded: z.number().int().min(1).optional(), deviation: z.enum(['reorder', 'fault', 'timer-early', 'timer-late', 'input-earlier', 'unrecorded']).optional() })),
          window: z.object({ start: z.number().int().min(1), ids: z.array(str) }),
        })
        .optional(),
    })
    .superRefine((f, ctx) => {
      // Step 0 is the initial world; step k is the effect of schedule[k-1].
      f.trace.forEach((e, i) => {
        if (e.step > f.schedule.length) ctx.addIssue({ code: 'custom', path: ['trace', i, 'step'], message: `step ${e.step} is past the end of the schedule (${f.schedule.length} steps)` });
      });
      if (f.cycleStart !== undefined && f.cycleStart >= f.schedule.length) {
        ctx.addIssue({ code: 'custom', path: ['cycleStart'], message: `cycleStart ${f.cycleStart} must be the index of a step of the schedule (0..${f.schedule.length - 1}): the cycle needs at least one step` });
      }
      f.passing?.trace.forEach((e, i) => {
        if (e.step > f.passing!.schedule.length) ctx.addIssue({ code: 'custom', path: ['passing', 'trace', i, 'step'], message: `step ${e.step} is past the end of the passing schedule (${f.passing!.schedule.length} steps)` });
      });
    });
  return { eventFields, eventSchema, traceFileSchema };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;
/** zod's `z`, loaded on first use. */
function zod(): typeof Zod {
  return (createRequire(import.meta.url)('zod') as { z: typeof Zod }).z;
}
/** The schemas, built on first use. */
function schemas(): Schemas {
  return (built ??= buildSchemas(zod()));
}

/** A validated trace file (what `validateTraceFile` and `parseTraceText` return). */
export type TraceFileData = Zod.infer<Schemas['traceFileSchema']>;

/**
 * The published JSON Schema of a trace file (docs/trace.schema.json), with each
 * known event kind spelled out (the zod schema checks those in a refinement).
 */
export function traceJsonSchema(): Record<string, unknown> {
  const { eventFields, traceFileSchema } = schemas();
  const z = zod();
  const opts = { io: 'input', unrepresentable: 'any' } as const;
  const strip = (x: Record<string, unknown>) => {
    delete x.$schema;
    return x;
  };
  const event = {
    anyOf: [
      ...Object.entries(eventFields).map(([k, f]) => strip(z.toJSONSchema(z.looseObject({ kind: z.literal(k), step: z.number().int().min(0), ...f }), opts) as Record<string, unknown>)),
      { type: 'object', description: 'an event kind added by a newer kernel', required: ['kind', 'step'], properties: { kind: { type: 'string', not: { enum: [...EVENT_KINDS] } }, step: { type: 'integer', minimum: 0 } } },
    ],
  };
  const root = z.toJSONSchema(traceFileSchema, opts) as any;
  root.title = `interleave trace file, schemaVersion ${TRACE_SCHEMA_VERSION}`;
  root.properties.trace = { type: 'array', items: event, description: 'recorded events; step 0 is the initial world, step k the effect of schedule[k-1]' };
  root.properties.passing.properties.trace = { type: 'array', items: event };
  return root;
}
/** One trace event of a validated file: its `kind`, `step` and the fields of that kind. */
export type TraceEventData = Zod.infer<Schemas['eventSchema']> & Record<string, unknown>;

/** A trace file could not be read: `message` names the file, the field and what was expected. */
export class TraceFileError extends Error {
  /** Always `'TraceFileError'`. */
  override name = 'TraceFileError';
}

function fieldPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || '(top level)';
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
}

/** The result of validating a trace file: the file, or an error naming what is wrong. */
export type ReadResult =
  | {
      /** The file is valid. */
      readonly ok: true;
      /** The validated file. */
      readonly file: TraceFileData;
    }
  | {
      /** The file is not valid. */
      readonly ok: false;
      /** What is wrong: the field and what was expected. */
      readonly error: string;
    };

/**
 * The path to the first value nested deeper than `max`, found without recursion.
 * The stack holds one frame per open level (a container and a cursor into it), not
 * a path per pending value, so memory is O(depth) however wide the input.
 */
function tooDeep(root: unknown, max: number): PropertyKey[] | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  type Frame = { keys: readonly PropertyKey[]; at: number; v: Record<PropertyKey, unknown> };
  const frame = (v: object): Frame => ({ keys: Array.isArray(v) ? [] : Object.keys(v), at: 0, v: v as Record<PropertyKey, unknown> });
  const stack: Frame[] = [frame(root)];
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    const isArr = Array.isArray(f.v);
    const n = isArr ? (f.v as unknown as unknown[]).length : f.keys.length;
    if (f.at >= n) {
      stack.pop();
      continue;
    }
    const k = isArr ? f.at : f.keys[f.at]!;
    f.at++;
    const child = f.v[k];
    if (typeof child !== 'object' || child === null) continue;
    if (stack.length >= max) return [...stack.map((s) => (Array.isArray(s.v) ? s.at - 1 : s.keys[s.at - 1]!))];
    stack.push(frame(child));
  }
  return undefined;
}

/** Validates parsed JSON as a trace file. Never throws. */
export function validateTraceFile(data: unknown, source = 'trace file', limits: TraceLimits = DEFAULT_TRACE_LIMITS): ReadResult {
  try {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return { ok: false, error: `${source}: expected a JSON object (an interleave trace with schemaVersion ${TRACE_SCHEMA_VERSION}), got ${typeName(data)}` };
    }
    const v = (data as Record<string, unknown>).schemaVersion;
    if (typeof v === 'number' && v > TRACE_SCHEMA_VERSION) {
      return { ok: false, error: `${source}: field 'schemaVersion' is ${v}, written by a newer interleave; this version reads schemaVersion ${TRACE_SCHEMA_VERSION}: upgrade interleave to read it` };
    }
    const deep = tooDeep(data, limits.maxDepth);
    if (deep) return { ok: false, error: `${source}: field '${fieldPath(deep.slice(0, 6))}…' is nested more than ${limits.maxDepth} levels deep; no interleave trace is (${raiseHint('maxDepth')})` };
    const r = schemas().traceFileSchema.safeParse(data);
    if (r.success) return { ok: true, file: r.data };
    const issues = r.error.issues.slice(0, 3).map((i) => `field '${fieldPath(i.path)}': ${i.message.replace(/^Invalid input: /, '')}`);
    const more = r.error.issues.length > 3 ? ` (and ${r.error.issues.length - 3} more)` : '';
    return { ok: false, error: `${source}: not a valid interleave trace (schemaVersion ${TRACE_SCHEMA_VERSION}): ${issues.join('; ')}${more}` };
  } catch (e) {
    // Pathological input (for example nesting deep enough to exhaust the stack).
    return { ok: false, error: `${source}: cannot be validated: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * Parses and validates the bytes of a trace file. The bytes are checked against
 * `limits` and for UTF-8 before anything is parsed. Never throws.
 */
export function parseTraceBytes(bytes: Uint8Array, source = 'trace file', limits: TraceLimits = DEFAULT_TRACE_LIMITS): ReadResult {
  const problem = traceBytesProblem(bytes, source, limits);
  if (problem) return { ok: false, error: problem };
  // A live recording streamed as it ran (runLive's recordTo): JSON lines, read as a trace file.
  if (isLiveLog(bytes)) {
    try {
      return validateTraceFile(liveLogTrace(new TextDecoder('utf-8', { fatal: true }).decode(bytes), source), source, limits);
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  }
  return parseChecked(bytes, source, limits);
}

/** Parses and validates the text of a trace file, under the same limits as `parseTraceBytes` (on its UTF-8 form). Never throws. */
export function parseTraceText(text: string, source = 'trace file', limits: TraceLimits = DEFAULT_TRACE_LIMITS): ReadResult {
  if (text.length > limits.maxBytes) return { ok: false, error: traceSizeProblem(text.length, source, limits)! };
  return parseTraceBytes(Buffer.from(text, 'utf8'), source, limits);
}

function parseChecked(bytes: Uint8Array, source: string, limits: TraceLimits): ReadResult {
  let data: unknown;
  try {
    data = parseJsonBytes(bytes);
  } catch (e) {
    return { ok: false, error: `${source}: not JSON (${e instanceof Error ? e.message : String(e)}); expected an interleave trace file written by 'interleave check'` };
  }
  return validateTraceFile(data, source, limits);
}
