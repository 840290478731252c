/**
 * One writer per repository at a time, within this process: writes queue on a per-key promise chain.
 * Ref updates are compare-and-swap besides, so a writer in another process cannot be overwritten silently.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Waits for the key, runs `fn`, frees the key (also when `fn` rejects). */
  async run<A>(key: string, fn: () => Promise<A>): Promise<A> {
    const release = await this.acquire(key);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Waits for the key; the answer frees it (once; later calls do nothing). */
  async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let free!: () => void;
    const mine = new Promise<void>((resolve) => (free = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      free();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
