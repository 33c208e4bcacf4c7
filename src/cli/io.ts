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

/**
 * Writes lines to a stream that a reader may close early (`interleave list | head -1`):
 * once the pipe is gone (EPIPE), later lines are dropped, so the command ends with its
 * own exit code instead of dying on an unhandled 'error' event.
 */
function lineWriter(stream: NodeJS.WriteStream): (s: string) => void {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') closed = true;
    else throw e;
  });
  return (s) => {
    if (!closed) stream.write(s.endsWith('\n') ? s : `${s}\n`);
  };
}

let streams: { out: (s: string) => void; err: (s: string) => void } | undefined;

export function processIo(): Io {
  streams ??= { out: lineWriter(process.stdout), err: lineWriter(process.stderr) };
  return {
    out: streams.out,
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
