/**
 * A cache of rendered GET responses. What a read returns is a function of the projections, the URL, the
 * caller and the day, so entries are valid until the application's version (its log position and the
 * current day) changes; the whole cache is dropped then. Only 200 responses of routes that authenticate
 * through the adapter are kept (routes that check their own credential, like SCIM, never are).
 */
import type { RenderedReply } from './response.js';

const payloadBytes = (rendered: RenderedReply): number => (rendered.payload ? Buffer.byteLength(rendered.payload) : 0);

export interface ResponseCacheOptions {
  /** Changes whenever a response could change: e.g. `${position}:${day}`. */
  readonly version: () => string;
  readonly maxEntries?: number;
  readonly maxBytes?: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, RenderedReply>();
  private bytes = 0;
  private version = '';
  /** The most recently used key: a hit on it is already where a move would put it. */
  private newest: string | null = null;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(private readonly options: ResponseCacheOptions) {
    this.maxEntries = options.maxEntries ?? 1_000;
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  get(key: string): RenderedReply | undefined {
    this.sync();
    const hit = this.entries.get(key);
    if (hit && key !== this.newest) {
      // Least recently used goes first: move the hit to the end. Not when it is there already (a read repeated),
      // where the delete and set made a hole per request that the map paid for when it rehashed.
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.newest = key;
    }
    return hit;
  }

  /** The version to pass to `set` for a response about to be computed. */
  current(): string {
    return this.options.version();
  }

  /** Stores a response computed at `version`, unless the state moved on while it was computed. */
  set(key: string, rendered: RenderedReply, version: string): void {
    this.sync();
    if (version !== this.version) return;
    const size = payloadBytes(rendered);
    if (size > this.maxBytes / 8) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.bytes -= payloadBytes(previous);
      // Out of its place, so that the set below puts it last, as a hit is (`newest` is always the last key).
      this.entries.delete(key);
    }
    this.entries.set(key, rendered);
    this.newest = key;
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= payloadBytes(entry);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private sync(): void {
    const version = this.options.version();
    if (version === this.version) return;
    this.entries.clear();
    this.newest = null;
    this.bytes = 0;
    this.version = version;
  }
}
