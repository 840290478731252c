/** One long-lived git process of a repository, as a pool keeps it. */
export interface PooledProcess {
  readonly busy: boolean;
  readonly lastUsed: number;
  readonly closed: boolean;
  close(): void;
}

/**
 * One long-lived process per repository directory, closed after `idleMs` without use, at most `max` open (the least
 * recently used idle one makes room). A process that exits leaves the pool through `onExit`; the next use opens another.
 */
export class ProcessPool<P extends PooledProcess> {
  private readonly processes = new Map<string, P>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly open: (gitDir: string, onExit: () => void) => P,
    private readonly max: number,
    private readonly idleMs: number,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, idleMs / 3));
    this.sweeper.unref();
  }

  /** Closes the process of one repository (before it is deleted or replaced). */
  release(gitDir: string): void {
    this.processes.get(gitDir)?.close();
    this.processes.delete(gitDir);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const process of this.processes.values()) process.close();
    this.processes.clear();
  }

  protected processOf(gitDir: string): P {
    const existing = this.processes.get(gitDir);
    if (existing && !existing.closed) return existing;
    if (this.processes.size >= this.max) this.evictOne();
    const process: P = this.open(gitDir, () => {
      if (this.processes.get(gitDir) === process) this.processes.delete(gitDir);
    });
    this.processes.set(gitDir, process);
    return process;
  }

  /** Hands the repository's open process over to the caller: it leaves the pool, still running. */
  protected take(gitDir: string): P | undefined {
    const existing = this.processes.get(gitDir);
    this.processes.delete(gitDir);
    return existing && !existing.closed ? existing : undefined;
  }

  /** Whether the repository has an open process in the pool. */
  protected has(gitDir: string): boolean {
    return this.processes.get(gitDir)?.closed === false;
  }

  private evictOne(): void {
    let oldest: [string, P] | null = null;
    for (const entry of this.processes) if (!entry[1].busy && (oldest === null || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    if (oldest) this.release(oldest[0]);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [gitDir, process] of this.processes) if (!process.busy && now - process.lastUsed > this.idleMs) this.release(gitDir);
  }
}
