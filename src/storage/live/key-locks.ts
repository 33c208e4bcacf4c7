// Per-key serialisation inside one process: a store's conditional put checks and writes
// under its key's lock, so two puts of one key in this process cannot interleave.

/** A queue per key: `run(key, f)` starts `f` after every earlier call on `key` has settled. */
export class KeyLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `f` after every earlier call on `key` has settled (whether it succeeded or failed). */
  run<T>(key: string, f: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const run = prev.then(f, f);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}
