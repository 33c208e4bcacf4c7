// Exit codes of the `interleave` command, and the error that carries code 2.
export const EXIT = { ok: 0, violation: 1, usage: 2, incomplete: 1, interrupted: 130 } as const;

/** Bad input from the user: a message naming the problem and the valid choices. Exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Edit distance, for "did you mean" suggestions. */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length]!;
}

export function didYouMean(word: string, choices: readonly string[]): string {
  const best = choices.map((c) => [c, distance(word, c)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= Math.max(2, Math.floor(word.length / 3)) ? ` (did you mean '${best[0]}'?)` : '';
}
