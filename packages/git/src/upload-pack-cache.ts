/**
 * Whole upload-pack answers kept in memory, as Gitaly's pack-objects cache does: a clone asked again of the same
 * refs gets the bytes git gave the first time, without a git process (each costs 10–20 ms to start here, and a
 * clone over HTTP needs two or three of them against one for a local clone).
 *
 * An answer is only reused under the same key: the repository, a token the caller changes whenever the refs may
 * have moved (the log's record of the repository), the protocol, and the exact (gunzipped) request. So a reused
 * answer is one git would give again; an answer computed while a write was between its ref move and its event is
 * filed under the old token and never served once the event is in. Requests with `have` lines (incremental
 * fetches, all different) are not kept. Bounded in bytes, least recently used out first.
 */
interface CachedAnswer {
  readonly contentType: string;
  readonly body: Buffer;
}

export class UploadPackCache {
  private readonly entries = new Map<string, CachedAnswer>();
  /** The latest token per repository: answers under an older one are dropped when a newer one is stored. */
  private readonly latest = new Map<string, string>();
  private bytes = 0;
  /**
   * What does not depend on the refs, per repository (v2's capability advertisement, v0's capabilities): kept
   * until the repository is forgotten, so that a clone after a change still starts no git for them.
   */
  private readonly fixed = new Map<string, unknown>();

  constructor(
    readonly budgetBytes: number,
    readonly entryMaxBytes: number = Math.floor(budgetBytes / 4),
  ) {}

  static key(scope: string, version: string, parts: readonly string[]): string {
    return [scope, version, ...parts].join('\0');
  }

  get(key: string): CachedAnswer | undefined {
    const found = this.entries.get(key);
    if (found === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, found);
    return found;
  }

  set(scope: string, version: string, key: string, answer: CachedAnswer): void {
    if (answer.body.length > this.entryMaxBytes) return;
    if (this.latest.get(scope) !== version) {
      this.latest.set(scope, version);
      const prefix = `${scope}\0`;
      for (const [other, entry] of this.entries) {
        if (other.startsWith(prefix) && !other.startsWith(`${prefix}${version}\0`)) this.remove(other, entry);
      }
    }
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    this.entries.set(key, answer);
    this.bytes += answer.body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(oldest, entry);
    }
  }

  getFixed<T>(scope: string, name: string): T | undefined {
    return this.fixed.get(`${scope}\0${name}`) as T | undefined;
  }

  setFixed(scope: string, name: string, value: unknown): void {
    // A few small values per repository; the oldest go when there are very many repositories.
    if (this.fixed.size >= 10_000) this.fixed.delete(this.fixed.keys().next().value!);
    this.fixed.set(`${scope}\0${name}`, value);
  }

  /** Forgets a repository (removed or recreated). */
  forget(scope: string): void {
    this.latest.delete(scope);
    const prefix = `${scope}\0`;
    for (const key of this.fixed.keys()) if (key.startsWith(prefix)) this.fixed.delete(key);
    for (const [key, entry] of this.entries) if (key.startsWith(prefix)) this.remove(key, entry);
  }

  get size(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string, entry: CachedAnswer): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
