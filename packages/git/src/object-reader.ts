/**
 * Bulk object reads through one long-lived `git cat-file --batch` per repository: a read is a line written to
 * its stdin and a header plus the object's bytes read back, in order, with no process spawned per object.
 * Readers close themselves when idle and the pool keeps a bounded number open.
 *
 * One process serves every request on the repository, so no request's input may end it for the others: only
 * names git resolves without dying are written (`<tree>:../x` or `main@{upstream}` make cat-file exit 128), and
 * should it exit all the same, the reads queued behind the one it was answering are asked again of a new one.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnGit } from './exec.js';
import { ProcessPool } from './process-pool.js';
import { asSha } from './objects.js';
import { isSafeRevision } from './ref-names.js';
import type { Sha } from './types.js';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface GitObject {
  readonly sha: Sha;
  readonly type: ObjectType;
  readonly data: Buffer;
}

interface Pending {
  readonly resolve: (object: GitObject | null) => void;
  readonly reject: (error: Error) => void;
}

const objectHeader = /^([0-9a-f]{40}) (commit|tree|blob|tag) (\d+)$/;

/**
 * The names a read may ask for: a sha, a ref or a revision as `isSafeRevision` accepts it, optionally peeled
 * (`main^{commit}`). No path syntax (`<tree>:<path>`: paths are walked through tree objects by the callers),
 * nothing git would die on; anything else is never an object.
 */
const isReadableName = (name: string) => isSafeRevision(name.replace(/\^\{(?:commit|tree|tag|blob)\}$/, ''));

/** A read that was pending when cat-file exited; `answering`: git was answering it, so it may be the cause. */
class ReaderExited extends Error {
  constructor(readonly answering: boolean) {
    super('git cat-file exited');
    this.name = 'ReaderExited';
  }
}

class ObjectReader {
  private readonly process: ChildProcess;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  /** The header of the object being read, once its line arrived. */
  private current: { sha: Sha; type: ObjectType; size: number } | null = null;
  closed = false;
  lastUsed = Date.now();

  constructor(
    gitDir: string,
    private readonly onExit: () => void,
  ) {
    this.process = spawnGit(gitDir, ['cat-file', '--batch']);
    this.process.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
    this.process.stderr!.on('data', () => undefined);
    this.process.stdin!.on('error', () => undefined);
    this.process.on('error', (error) => this.failAll(() => error));
    this.process.on('close', () => {
      this.closed = true;
      // Answers come in order and stdout is read to its end before 'close': the first read still waiting is
      // the one git was on.
      this.failAll((index) => new ReaderExited(index === 0));
      this.onExit();
    });
  }

  get busy(): boolean {
    return this.pending.length > 0;
  }

  read(name: string): Promise<GitObject | null> {
    this.lastUsed = Date.now();
    if (!isReadableName(name)) return Promise.resolve(null);
    if (this.closed) return Promise.reject(new Error('git cat-file is closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.process.stdin!.write(`${name}\n`);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.process.stdin!.end();
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.current === null) {
        const newline = this.buffer.indexOf(0x0a);
        if (newline === -1) return;
        const header = this.buffer.subarray(0, newline).toString('utf8');
        this.buffer = this.buffer.subarray(newline + 1);
        const found = objectHeader.exec(header);
        // Otherwise `<name> missing` or `<name> ambiguous` (the name may hold spaces): no content follows.
        if (!found) {
          this.pending.shift()?.resolve(null);
          continue;
        }
        this.current = { sha: asSha(found[1]!), type: found[2] as ObjectType, size: Number(found[3]) };
      }
      const { size } = this.current;
      if (this.buffer.length < size + 1) return;
      // Copy: the object outlives the chunk it arrived in.
      const data = Buffer.from(this.buffer.subarray(0, size));
      this.buffer = this.buffer.subarray(size + 1);
      const object: GitObject = { sha: this.current.sha, type: this.current.type, data };
      this.current = null;
      this.pending.shift()?.resolve(object);
    }
  }

  private failAll(errorFor: (index: number) => Error): void {
    this.pending.splice(0).forEach((waiting, index) => waiting.reject(errorFor(index)));
  }
}

/** One reader per repository directory, closed after `idleMs`, at most `max` open. */
export class ObjectReaderPool extends ProcessPool<ObjectReader> {
  constructor(max = 16, idleMs = 15_000) {
    super((gitDir, onExit) => new ObjectReader(gitDir, onExit), max, idleMs);
  }

  /**
   * Reads an object by sha or revision (`main`, `v1.0^{commit}`, `refs/tags/v1`); null when missing or not a
   * name `isReadableName` accepts. A read that waited behind the one a dying cat-file was answering is asked
   * once more, of a new process.
   */
  async read(gitDir: string, name: string): Promise<GitObject | null> {
    try {
      return await this.processOf(gitDir).read(name);
    } catch (error) {
      if (error instanceof ReaderExited && !error.answering) return this.processOf(gitDir).read(name);
      throw error;
    }
  }

  /** Reads many objects at once: the requests are written before the first answer is awaited. */
  readAll(gitDir: string, names: readonly string[]): Promise<(GitObject | null)[]> {
    return Promise.all(names.map((name) => this.read(gitDir, name)));
  }
}
