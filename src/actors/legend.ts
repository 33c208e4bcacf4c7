// What a reader of a counterexample needs to know that ids do not say: each actor's
// role, each property in one line, and notes on the steps that matter. Scenarios carry
// it (`legend`); the text report, Mermaid and the HTML viewer show it.

/** One note for the steps whose id is `step`, or matches it when it is a RegExp. */
export interface StepNote {
  /** A step id (exact), or a RegExp tested against the step id. */
  readonly step: string | RegExp;
  /** The note, one line. */
  readonly note: string;
}

/**
 * A scenario's legend (all fields optional).
 *
 * @example
 * ```ts
 * legend: {
 *   actors: { LE: 'the loop-end worker', 'LE.r0': "LE's reader of its input port" },
 *   properties: { I12: 'every loop iteration completes with the reference output' },
 *   steps: [{ step: /Fetch!403$/, note: 'the store refuses the read (403)' }],
 * }
 * ```
 */
export interface Legend {
  /** Actor id → its role in the protocol, one line. */
  readonly actors?: Readonly<Record<string, string>>;
  /** Property name (invariant, monitor, eventually, liveness) or its id → one line. */
  readonly properties?: Readonly<Record<string, string>>;
  /** Notes on steps, matched against the step id (`deliver:a->b:Type`, …). */
  readonly steps?: readonly StepNote[];
}

/** The notes of the legend that apply to one step id. */
export function stepNotes(legend: Legend | undefined, id: string): string[] {
  if (!legend?.steps || id === '') return [];
  return legend.steps.filter((s) => (typeof s.step === 'string' ? s.step === id : new RegExp(s.step.source, s.step.flags.replace('g', '')).test(id))).map((s) => s.note);
}

/** The role a legend gives an actor, or undefined. */
export function actorRole(legend: Legend | undefined, actor: string): string | undefined {
  return legend?.actors?.[actor];
}

/**
 * The line a legend has for a property: by its full name, or by its first word (`I12`
 * for "I12 loop completes with the reference output").
 */
export function propertyNote(legend: Legend | undefined, name: string): string | undefined {
  const p = legend?.properties;
  if (!p) return undefined;
  return p[name] ?? p[name.split(/\s+/)[0] ?? ''];
}

/** What is wrong with a legend's shape, or undefined. */
export function legendProblem(l: unknown): string | undefined {
  if (l === undefined) return undefined;
  if (typeof l !== 'object' || l === null || Array.isArray(l)) return '`legend` must be an object { actors?, properties?, steps? }';
  const { actors, properties, steps } = l as Legend;
  for (const [k, m] of [['actors', actors], ['properties', properties]] as const) {
    if (m === undefined) continue;
    if (typeof m !== 'object' || m === null || Object.values(m).some((v) => typeof v !== 'string')) return `\`legend.${k}\` must map names to one-line strings`;
  }
  if (steps !== undefined && (!Array.isArray(steps) || steps.some((s) => typeof s?.note !== 'string' || !(typeof s.step === 'string' || s.step instanceof RegExp)))) {
    return '`legend.steps` must be a list of { step: string | RegExp, note: string }';
  }
  return undefined;
}
