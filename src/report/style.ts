// Terminal colours: on only for a TTY, off when NO_COLOR is set (https://no-color.org).
export interface Style {
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly red: (s: string) => string;
  readonly green: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly cyan: (s: string) => string;
}

const id = (s: string) => s;
export const plain: Style = { bold: id, dim: id, red: id, green: id, yellow: id, cyan: id };

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
export const ansi: Style = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };

/** Colours for a stream: only when it is a TTY and NO_COLOR is unset or empty. */
export function styleFor(stream: { readonly isTTY?: boolean }, env: Readonly<Record<string, string | undefined>> = process.env): Style {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return plain;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return ansi;
  return stream.isTTY ? ansi : plain;
}
