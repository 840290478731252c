/**
 * `synchronous=FULL` without blocking the event loop: SQLite commits at `synchronous=NORMAL` (the WAL frames are
 * written, not flushed) and the commit is acknowledged after an fdatasync of the WAL on libuv's thread pool, which
 * is what FULL would have done inside the COMMIT, synchronously, on the event loop (a 10–100 ms stall per batch on
 * a busy disk). Commits that arrive while a flush runs share the next one: a commit waits for a flush that began
 * after it was written.
 */
import { open, type FileHandle } from 'node:fs/promises';

export class WalSync {
  private file: Promise<FileHandle> | null = null;
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly walPath: string) {}

  /** Resolves once everything written to the WAL before the call is on disk. */
  sync(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running.then(
      () => this.afterRunning(),
      () => this.afterRunning(),
    );
    return this.next;
  }

  private afterRunning(): Promise<void> {
    this.next = null;
    return this.start();
  }

  private start(): Promise<void> {
    const run = (async () => {
      // The WAL exists from the first commit on and keeps its inode while a connection is open (restarts rewrite it).
      this.file ??= open(this.walPath, 'r');
      await (await this.file).datasync();
    })();
    this.running = run.finally(() => {
      if (this.running === tracked) this.running = null;
    });
    const tracked = this.running;
    return tracked;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.next, this.running]);
    const file = this.file;
    this.file = null;
    if (file) await (await file).close().catch(() => undefined);
  }
}
