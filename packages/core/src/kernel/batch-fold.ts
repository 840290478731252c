/**
 * Folds a commit batch's events into the committed state, the state each decision of the batch reads in between.
 *
 * Under immer every table node on a written path becomes a proxy with its bookkeeping, every read through the draft
 * drafts what it reads, and finalisation walks them all again: a quarter of a served `POST /groups`'s main thread
 * (issue 16, branch `writecpu2`). The events a `CopyOnWriteRule` admits (a group creation's) are folded instead on
 * plain copies: the slices they write are copied once per run of such events, the table helpers copy each table's
 * root and trie node on its first write (`withOwned` in table.ts) and write it in place after that, and the decisions in between read plain objects. Any other event is folded under immer, on a draft of the
 * state so far; runs of either kind follow each other in one batch. evolve stays the one definition of an event's
 * effect: the copy-on-write path runs the same recipe, and test/kernel/copy-on-write.test.ts checks that it yields
 * immer's state (deep equal, same hash, frozen the same way).
 */
import { freeze, type Immer } from 'immer';
import type { Decider } from './decider.js';
import type { DomainEvent } from './envelope.js';
import { withOwned, type Ownership } from './table.js';
import { foldedInPlace } from './fold-generation.js';

type Slices = Record<string, unknown>;

/** A slice copied for a copy-on-write run, with its original, so that what the run left unwritten is shared again. */
interface CopiedSlice {
  readonly name: string;
  readonly original: Slices;
  readonly copy: Slices;
}

export class BatchFold<S> {
  /** The state as of the last finished run (the committed state at first). */
  private base: S;
  /** A copy-on-write run's root, its owned nodes and the slices it copied. */
  private working: Slices | null = null;
  private ownership: Ownership = { nodes: new Set(), roots: new Map() };
  private copied: CopiedSlice[] = [];
  /** An immer run's draft. */
  private draft: S | null = null;
  private any = false;

  constructor(
    committed: S,
    private readonly decider: Pick<Decider<never, DomainEvent, S>, 'evolve' | 'copyOnWrite'>,
    private readonly immer: Immer,
    /** Copy-on-write allowed (else every event is folded under immer, as before). */
    private readonly copying: boolean,
    /** Deep-freeze the result as immer's auto-freeze does. */
    private readonly freezing: boolean,
  ) {
    this.base = committed;
  }

  /** The state the batch's next decision reads: with every event folded so far. */
  get state(): S {
    return this.draft ?? (this.working as S | null) ?? this.base;
  }

  /** Whether any event has been folded. */
  get folded(): boolean {
    return this.any;
  }

  fold(event: DomainEvent): void {
    this.any = true;
    foldedInPlace();
    const rule = this.copying ? this.decider.copyOnWrite?.get(event.type) : undefined;
    if (rule !== undefined && rule.when(this.state, event)) {
      if (this.draft !== null) this.endDraft();
      const working = this.startCopying(rule.slices);
      withOwned(this.ownership, () => this.decider.evolve(working as S, event));
      return;
    }
    if (this.working !== null) this.endCopying();
    this.draft ??= this.immer.createDraft(this.base as object) as S;
    this.decider.evolve(this.draft, event);
  }

  /** The batch's resulting state (the committed one when nothing was folded), frozen when asked. */
  finish(): S {
    if (this.working !== null) this.endCopying();
    if (this.draft !== null) this.endDraft();
    // As `produce` does at the end of every recipe, changes or not: deep-freezes what is not frozen yet.
    if (this.freezing) freeze(this.base, true);
    return this.base;
  }

  /** The copy-on-write run's root, with `slices` copied (once per run). */
  private startCopying(slices: readonly string[]): Slices {
    const working = (this.working ??= { ...(this.base as Slices) });
    for (const name of slices) {
      if (this.copied.some((slice) => slice.name === name)) continue;
      const original = working[name] as Slices;
      const copy: Slices = { ...original };
      // A slice's tables are its array fields: a root is copied (into this copy's field) when it is first written.
      for (const field of Object.keys(copy)) {
        const value = copy[field];
        if (Array.isArray(value)) this.ownership.roots.set(value, { slice: copy, field });
      }
      working[name] = copy;
      this.copied.push({ name, original, copy });
    }
    return working;
  }

  /** Ends a copy-on-write run: what it copied and left as it was is the original again (immer shares unwritten nodes). */
  private endCopying(): void {
    const working = this.working!;
    let changed = false;
    for (const { name, original, copy } of this.copied) {
      if (Object.keys(copy).every((field) => copy[field] === original[field])) working[name] = original;
      else changed = true;
    }
    this.base = changed ? (working as S) : this.base;
    this.working = null;
    this.ownership = { nodes: new Set(), roots: new Map() };
    this.copied = [];
  }

  private endDraft(): void {
    this.base = this.immer.finishDraft(this.draft) as S;
    this.draft = null;
  }
}
