/**
 * The module kit. A module owns slices of the state, its commands and its events: `decide` reads whatever it
 * needs (its declared read type) and returns events, `evolve` writes only the module's own slices, and
 * `follows` lets it keep its slices current with another module's events (a group's projects move when the
 * group is renamed). `composeModules` turns the module list into the one Decider the Application runs, the
 * event registry and the projection version.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Draft } from 'immer';
import type { CopyOnWriteRule, Decider, Decision, Issued } from './decider.js';
import { badRequest, type DomainError } from './domain-error.js';
import type { DomainEvent } from './envelope.js';
import { EventRegistry, type EventDefinitions, type EventsOf } from './events.js';

/** A state in which the slices `K` may be written and every other slice only read. */
export type Writable<S, K extends keyof S> = { -readonly [P in K]: Draft<S[P]> } & { readonly [P in Exclude<keyof S, K>]: S[P] };

/** Handlers of other modules' events, by type. */
export type Follows<S, Followed extends DomainEvent> = { readonly [T in Followed['type']]?: (state: S, event: Extract<Followed, { type: T }>) => void };

/** Background work a module asks for: when `due` holds, the command runs as the system. */
export interface Process<R, C> {
  readonly name: string;
  /** Whether the process has work at this moment (ISO-8601 time from the Clock); cheap, called before requests. */
  readonly due: (state: R, now: string) => boolean;
  readonly command: C;
  /**
   * The part of the state `due` reads: once the command has run against it on a day, it is not run again that day
   * (a due process whose decision changes nothing, such as a last owner who never expires, runs once).
   */
  readonly reads: (state: R) => object;
}

export interface ModuleDefinition<Name extends string, S extends object, R, W, C extends { readonly type: string }, Defs extends EventDefinitions, Followed extends DomainEvent = never> {
  readonly name: Name;
  /** Bump when the module's slices change shape or its evolve changes: snapshots of older code are then ignored. */
  readonly version: number;
  /** The module's own slices, empty. */
  readonly initial: () => S;
  readonly events: Defs;
  /** Every command type the module decides (the dispatch table is built from these lists). */
  readonly commands: readonly C['type'][];
  readonly decide: (issued: Issued<C>, state: R) => E.Either<DomainError, Decision<DomainEvent>>;
  /** Applies one of the module's own events; writes only the module's slices (`W`). */
  readonly evolve: (state: W, event: EventsOf<Defs>) => void;
  readonly follows?: Follows<W, Followed>;
  readonly processes?: readonly Process<R, C>[];
  /**
   * The events (its own or followed) this module folds writing only through the table helpers (`tableSet`,
   * `tableGetOrCreate`, `tableSetIn`, `tableDelete`) and to its slices' own fields — never in place into a value read back from a
   * table (a row's field, a list in a row) — each with the condition under which that holds. An event takes the
   * copy-on-write path of a batch (see `BatchFold`) only when every module that applies it lists it and every
   * condition holds; the test in test/kernel/copy-on-write.test.ts checks that the path yields immer's state.
   */
  readonly copyOnWrite?: { readonly [T in EventsOf<Defs>['type'] | Followed['type']]?: (state: R, event: Extract<EventsOf<Defs> | Followed, { type: T }>) => boolean };
}

/** A module with its types erased, as the composition holds it. */
export interface AnyModule<S> {
  readonly name: string;
  readonly version: number;
  readonly initial: () => object;
  readonly events: EventDefinitions;
  readonly commands: readonly string[];
  readonly decide: (issued: Issued<never>, state: S) => E.Either<DomainError, Decision<DomainEvent>>;
  readonly evolve: (state: never, event: never) => void;
  readonly follows?: Readonly<Record<string, ((state: never, event: never) => void) | undefined>>;
  readonly processes?: readonly Process<S, { readonly type: string }>[];
  readonly copyOnWrite?: Readonly<Record<string, ((state: never, event: never) => boolean) | undefined>>;
}

/** Identity helper that infers a module's types from its parts. */
export const defineModule = <Name extends string, S extends object, R, W, C extends { readonly type: string }, Defs extends EventDefinitions, Followed extends DomainEvent = never>(
  module: ModuleDefinition<Name, S, R, W, C, Defs, Followed>,
): ModuleDefinition<Name, S, R, W, C, Defs, Followed> => module;

/** The commands a module decides. */
export type CommandOf<M> = M extends { readonly commands: readonly unknown[]; readonly decide: (issued: Issued<infer C>, state: never) => unknown } ? C : never;

/** The events a module defines. */
export type EventOf<M> = M extends { readonly events: infer Defs extends EventDefinitions } ? EventsOf<Defs> : never;

type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** The slices of a list of modules, together. */
export type SlicesOf<M> = Intersection<M extends { readonly initial: () => infer S } ? Readonly<S> : never>;

export interface Composition<C, S> {
  readonly decider: Decider<C, DomainEvent, S>;
  readonly registry: EventRegistry;
  readonly projectionVersion: string;
  /** Every module's processes. */
  readonly processes: readonly Process<S, C>[];
}

/**
 * One Decider over the union of the modules' slices. `guard` runs before every decision (the actor checks every
 * command shares). On each event the owning module's evolve runs first, then its followers in list order.
 */
export const composeModules = <C extends { readonly type: string }, S>(
  prefix: string,
  modules: readonly AnyModule<S>[],
  options: { readonly initial: () => object; readonly guard?: (issued: Issued<C>, state: S) => DomainError | null },
): Composition<C, S> => {
  const byCommand = new Map<string, AnyModule<S>>();
  const appliers = new Map<string, ((state: S, event: DomainEvent) => void)[]>();
  /** By event type, the modules that apply it (its own, then its followers). */
  const appliedBy = new Map<string, AnyModule<S>[]>();
  const add = (type: string, apply: (state: S, event: DomainEvent) => void, module: AnyModule<S>) => {
    const list = appliers.get(type) ?? [];
    list.push(apply);
    appliers.set(type, list);
    appliedBy.set(type, [...(appliedBy.get(type) ?? []), module]);
  };
  for (const module of modules) {
    for (const type of module.commands) {
      if (byCommand.has(type)) throw new Error(`Command ${type} is decided by ${byCommand.get(type)!.name} and ${module.name}`);
      byCommand.set(type, module);
    }
    // The erased signatures take `never`: each module only ever receives the events it declared.
    const evolve = module.evolve as (state: S, event: DomainEvent) => void;
    for (const type of Object.keys(module.events)) add(type, evolve, module);
  }
  for (const module of modules) {
    for (const [type, follow] of Object.entries(module.follows ?? {})) {
      if (!follow) continue;
      if (!appliers.has(type)) throw new Error(`${module.name} follows ${type}, which no module defines`);
      add(type, follow as (state: S, event: DomainEvent) => void, module);
    }
  }
  const decide = (issued: Issued<C>, state: S): E.Either<DomainError, Decision<DomainEvent>> => {
    const refused = options.guard?.(issued, state) ?? null;
    if (refused) return E.left(refused);
    const module = byCommand.get(issued.command.type);
    // Issued<C> narrows to the module's own commands through the dispatch table.
    return module ? module.decide(issued as Issued<never>, state) : E.left(badRequest(`unknown command ${String(issued.command.type)}`));
  };
  const evolve = (state: S, event: DomainEvent): void => {
    for (const apply of appliers.get(event.type) ?? []) apply(state, event);
  };
  // An event folds by copying on write only when every module applying it says it may, under all their conditions.
  const copyOnWrite = new Map<string, CopyOnWriteRule<S>>();
  for (const [type, applying] of appliedBy) {
    const conditions = applying.map((module) => module.copyOnWrite?.[type] as ((state: S, event: DomainEvent) => boolean) | undefined);
    if (conditions.some((condition) => condition === undefined)) continue;
    // The kernel's own slices (the sequences every module advances) and the applying modules'.
    const slices = [...new Set([...Object.keys(options.initial()), ...applying.flatMap((module) => Object.keys(module.initial()))])];
    const all = conditions as ((state: S, event: DomainEvent) => boolean)[];
    copyOnWrite.set(type, { slices, when: (state, event) => all.every((condition) => condition(state, event)) });
  }
  return {
    decider: { decide, evolve, copyOnWrite, initialState: () => Object.assign(options.initial(), ...modules.map((module) => module.initial())) as S },
    registry: new EventRegistry(...modules.map((module) => module.events)),
    projectionVersion: `${prefix}/${modules.map((module) => `${module.name}.${module.version}`).join('/')}`,
    processes: modules.flatMap((module) => (module.processes ?? []) as readonly Process<S, C>[]),
  };
};
