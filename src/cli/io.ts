// Where the CLI writes: stdout for results, stderr for progress and errors.
import { styleFor, type Style } from '../report/style.ts';

export interface Io {
  readonly out: (s: string) => void;
  /** Writes to stdout as is, no newline added (a page written in pieces); without it, `out` is used for the whole. */
  readonly write?: (s: string) => void;
  readonly err: (s: string) => void;
  /** Colours for stdout and stderr (TTY only, NO_COLOR honoured). */
  readonly style: Style;
  readonly errStyle: Style;
  readonly tty: boolean;
}

/**
 * Writes lines (or pieces as they are) to a stream that a reader may close early (`interleave list | head -1`):
 * once the pipe is gone (EPIPE), later lines are dropped, so the command ends with its
 * own exit code instead of dying on an unhandled 'error' event.
 */
function writers(stream: NodeJS.WriteStream): { line: (s: string) => void; raw: (s: string) => void } {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') closed = true;
    else throw e;
  });
  return {
    line: (s) => {
      if (!closed) stream.write(s.endsWith('\n') ? s : `${s}\n`);
    },
    raw: (s) => {
      if (!closed) stream.write(s);
    },
  };
}

let streams: { out: (s: string) => void; write: (s: string) => void; err: (s: string) => void } | undefined;

export function processIo(): Io {
  if (!streams) {
    const out = writers(process.stdout);
    streams = { out: out.line, write: out.raw, err: writers(process.stderr).line };
  }
  return {
    out: streams.out,
    write: streams.write,
    err: streams.err,
    style: styleFor(process.stdout),
    errStyle: styleFor(process.stderr),
    tty: Boolean(process.stdout.isTTY && process.stderr.isTTY),
  };
}

/** `--json`: exactly one JSON document on stdout. */
export function printJson(io: Io, v: unknown): void {
  io.out(JSON.stringify(v, null, 2));
}
