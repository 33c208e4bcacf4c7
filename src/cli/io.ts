// Where the CLI writes: stdout for results, stderr for progress and errors.
import { styleFor, type Style } from '../report/style.ts';

export interface Io {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  /** Colours for stdout and stderr (TTY only, NO_COLOR honoured). */
  readonly style: Style;
  readonly errStyle: Style;
  readonly tty: boolean;
}

export function processIo(): Io {
  return {
    out: (s) => void process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => void process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
    style: styleFor(process.stdout),
    errStyle: styleFor(process.stderr),
    tty: Boolean(process.stdout.isTTY && process.stderr.isTTY),
  };
}

/** `--json`: exactly one JSON document on stdout. */
export function printJson(io: Io, v: unknown): void {
  io.out(JSON.stringify(v, null, 2));
}
