// The benchmarks' `--name=value` flags (`npm run bench -- NAME --name=value`).

/** The value of `--name=value` among `argv`, or undefined when it is not given. */
export function flag(argv: readonly string[], name: string): string | undefined {
  return argv.find((x) => x.startsWith(`--${name}=`))?.slice(name.length + 3);
}
