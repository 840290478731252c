/**
 * Ref transactions through one long-lived `git update-ref --stdin` per repository: each write sends `start`,
 * its `update <ref> <new> <old>` lines (compare-and-swap, as before), `prepare` and `commit`, and waits for
 * `commit: ok`. Why: starting a git process blocks the event loop until the child has exec'd (30–60 ms each on
 * a busy machine, measured), and the ref move was the last process an API commit started.
 *
 * A transaction git refuses (a ref moved, a name clash) makes git exit with its usual message: the caller gets
 * it as a `GitCommandError`, as from a one-off `update-ref`, and the next transaction starts a new process.
 * Transactions of one repository go one at a time (one refused must not take the next down with it).
 */
import type { ChildProcess } from 'node:child_process';
import { GitCommandError } from './errors.js';
import { spawnGit } from './exec.js';
import { ProcessPool } from './process-pool.js';

class RefUpdater {
  private readonly process: ChildProcess;
  private stdout = '';
  private stderr = '';
  private waiting: { resolve: () => void; reject: (error: Error) => void } | null = null;
  private tail: Promise<void> = Promise.resolve();
  closed = false;
  lastUsed = Date.now();

  constructor(
    gitDir: string,
    private readonly onExit: () => void,
  ) {
    this.process = spawnGit(gitDir, ['update-ref', '--stdin']);
    this.process.stdout!.on('data', (chunk: Buffer) => this.receive(chunk.toString('utf8')));
    this.process.stderr!.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 64 * 1024) this.stderr += chunk.toString('utf8');
    });
    this.process.stdin!.on('error', () => undefined);
    this.process.on('error', (error) => this.finish(error));
    this.process.on('close', (code) => {
      this.closed = true;
      this.finish(new GitCommandError('update-ref', code, this.stderr));
      this.onExit();
    });
  }

  get busy(): boolean {
    return this.waiting !== null;
  }

  /** Runs one transaction of `update …` lines; resolves once git committed it. */
  transaction(updates: string): Promise<void> {
    const run = this.tail.then(
      () =>
        new Promise<void>((resolve, reject) => {
          this.lastUsed = Date.now();
          if (this.closed) return reject(new GitCommandError('update-ref', null, this.stderr || 'git update-ref exited'));
          this.waiting = { resolve, reject };
          this.process.stdin!.write(`start\n${updates}prepare\ncommit\n`);
        }),
    );
    this.tail = run.catch(() => undefined);
    return run;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.process.stdin!.end();
  }

  private receive(text: string): void {
    this.stdout += text;
    for (let newline = this.stdout.indexOf('\n'); newline !== -1; newline = this.stdout.indexOf('\n')) {
      const line = this.stdout.slice(0, newline);
      this.stdout = this.stdout.slice(newline + 1);
      // `start: ok` and `prepare: ok` come first; the transaction is done at `commit: ok`.
      if (line === 'commit: ok') {
        const waiting = this.waiting;
        this.waiting = null;
        waiting?.resolve();
      }
    }
  }

  private finish(error: Error): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }
}

/** One updater per repository directory, closed after `idleMs`, at most `max` open. */
export class RefUpdaterPool extends ProcessPool<RefUpdater> {
  constructor(max = 16, idleMs = 15_000) {
    super((gitDir, onExit) => new RefUpdater(gitDir, onExit), max, idleMs);
  }

  /** `updates`: `update <ref> <new> <old>\n` lines, validated by the caller. */
  transaction(gitDir: string, updates: string): Promise<void> {
    return this.processOf(gitDir).transaction(updates);
  }
}
