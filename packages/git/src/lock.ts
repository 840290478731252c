/**
 * Writers of a repository, within this process. Most writes hold the repository's lock alone (`run`,
 * `acquire`): a push, a tag, a merge, a fork's copy. A commit to one branch holds that branch's lock and the
 * repository's lock shared (`runBranch`), so commits to different branches run side by side: git's object
 * writes are safe concurrently, and every ref moves by compare-and-swap, so a writer in another process cannot
 * be overwritten silently either.
 *
 * Waiters are served in order: a repository-wide writer waiting stops later branch writers from starting,
 * so it is never starved. A branch writer takes its branch's lock before the shared one (and a
 * repository-wide writer never takes a branch's lock), so no two writers wait on each other.
 */
interface Waiter {
  readonly exclusive: boolean;
  readonly grant: () => void;
}

interface KeyState {
  shared: number;
  exclusive: boolean;
  readonly queue: Waiter[];
}

export class KeyedLock {
  private readonly states = new Map<string, KeyState>();

  /** Waits for the key alone, runs `fn`, frees the key (also when `fn` rejects). */
  async run<A>(key: string, fn: () => Promise<A>): Promise<A> {
    const release = await this.acquire(key);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Waits for `branch` of `key` alone and for `key` shared, runs `fn`, frees both. */
  async runBranch<A>(key: string, branch: string, fn: () => Promise<A>): Promise<A> {
    const releaseBranch = await this.take(`${key}\0branch\0${branch}`, true);
    try {
      const releaseShared = await this.take(key, false);
      try {
        return await fn();
      } finally {
        releaseShared();
      }
    } finally {
      releaseBranch();
    }
  }

  /** Waits for the key alone; the answer frees it (once; later calls do nothing). */
  acquire(key: string): Promise<() => void> {
    return this.take(key, true);
  }

  private take(key: string, exclusive: boolean): Promise<() => void> {
    let state = this.states.get(key);
    if (state === undefined) {
      state = { shared: 0, exclusive: false, queue: [] };
      this.states.set(key, state);
    }
    const held = state;
    return new Promise((resolve) => {
      held.queue.push({
        exclusive,
        grant: () => {
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            if (exclusive) held.exclusive = false;
            else held.shared--;
            this.dispatch(key, held);
          });
        },
      });
      this.dispatch(key, held);
    });
  }

  /** Grants waiters from the front of the queue while they can run. */
  private dispatch(key: string, state: KeyState): void {
    while (state.queue.length > 0) {
      const next = state.queue[0]!;
      if (state.exclusive || (next.exclusive && state.shared > 0)) break;
      state.queue.shift();
      if (next.exclusive) state.exclusive = true;
      else state.shared++;
      next.grant();
    }
    if (state.queue.length === 0 && state.shared === 0 && !state.exclusive && this.states.get(key) === state) this.states.delete(key);
  }
}
