// What the examples' command lines share: flags parsed against a usage line (a bad
// flag is exit code 2 with the usage, --help prints it), a live run awaited so that
// a crash is reported and the run stopped, and the run's recording written as a
// trace file that `interleave replay` and the checker read.
import { writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { LiveSystem } from 'interleave/live';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O }>>['values'];

/** The flags' values, or the exit code when there is nothing to run (a bad flag: 2, --help: 0). */
export function parseFlags<const O extends Options>(argv: string[], options: O, usage: string): Values<O> | number {
  let values: Values<O>;
  try {
    values = parseArgs({ args: argv, options }).values as Values<O>;
  } catch (e) {
    return usageError((e as Error).message, usage);
  }
  if ((values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return values;
}

/** A bad argument: the problem, then the usage line; exit code 2. */
export function usageError(msg: string, usage: string): number {
  console.error(`${msg}\n${usage}`);
  return 2;
}

/** Awaits the run's end; a crash prints `failed: ...`, stops the run and gives undefined. */
export async function untilDone<T>(done: Promise<T>, stop: () => Promise<void>): Promise<{ readonly value: T } | undefined> {
  try {
    return { value: await done };
  } catch (e) {
    console.error(`failed: ${(e as Error).message}`);
    await stop();
    return undefined;
  }
}

/**
 * Writes the live run's recording as a trace file; gives the number of steps written.
 * `params` names the catalog family's parameters, so `interleave replay` can rebuild
 * the scenario (a scenario built directly records its own config instead).
 */
export async function writeTrace(file: string, system: Pick<LiveSystem, 'recording' | 'schedule'>, params?: Readonly<Record<string, unknown>>): Promise<number> {
  // Loaded only when asked for: the checker is not needed to run an example.
  const { liveTraceFile } = await import('interleave/live');
  const rec = system.recording();
  writeFileSync(file, JSON.stringify(liveTraceFile(params ? { ...rec, params } : rec)));
  return system.schedule().length;
}
