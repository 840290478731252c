/**
 * The declarative route layer over the Grape-like schema: a command route finds what it acts on, may check the
 * caller first (when the platform's answer must come before the command's), runs one command as the request's
 * actor and presents the result; a list route finds, checks, and pages rows through the platform's pagination.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { CommandResult, DomainError, ForgefoldCommand, Group, Project, State } from '@forgefold/core';
import {
  arraySource,
  isDomainError,
  paginate,
  route,
  type AuthMode,
  type HandlerContext,
  type HandlerResult,
  type HttpMethod,
  type OffsetSource,
  type PaginateOptions,
  type RouteDef,
  type Schema,
} from '../http/index.js';
import type { PresentContext } from '../resources/context.js';
import { findReadableGroup, findReadableProject, presentContext, type ApiDeps } from './deps.js';

interface RouteBase<P> {
  readonly path: string;
  readonly params?: Schema<P>;
  readonly auth?: AuthMode;
  readonly admin?: boolean;
  readonly scopes?: readonly string[];
  /** Scopes accepted on GET/HEAD only, listed in every insufficient_scope answer (see `RouteDef.readScopes`). */
  readonly readScopes?: readonly string[];
  /** Grape `before`: after authentication, before parameter validation. */
  readonly before?: RouteDef['before'];
  /** False for answers that change without the log moving (live status): never served from the response cache. */
  readonly cache?: false;
}

/** What a command route's `present` receives. */
export type CommandResultOf = CommandResult<State>;

/** Finds what a route acts on (`find_group!`, `find_project!`…); a Left is the answer. */
type Find<P, F> = (ctx: HandlerContext<P>, state: State) => E.Either<DomainError, F>;

/** The route's own check (the platform's `authorize!`): an error when the caller may not go on. */
type Authorize<P, F> = (ctx: HandlerContext<P>, state: State, found: F) => DomainError | null;

export interface CommandRouteSpec<P, F> extends RouteBase<P> {
  readonly method: Exclude<HttpMethod, 'GET'>;
  readonly find: Find<P, F>;
  readonly authorize?: Authorize<P, F>;
  /** The command, or an error in the platform's words before any command runs. */
  readonly command: (ctx: HandlerContext<P>, found: F) => ForgefoldCommand | DomainError | Promise<ForgefoldCommand | DomainError>;
  readonly present: (done: CommandResult<State>, ctx: HandlerContext<P>, found: F) => HandlerResult;
  /** The command's failure in this route's words (e.g. "400 Bad request" where the platform says so). */
  readonly error?: (error: DomainError) => DomainError;
}

export const commandRoute = <P, F>(deps: ApiDeps, spec: CommandRouteSpec<P, F>): RouteDef<P> =>
  route<P>({
    method: spec.method,
    path: spec.path,
    ...routeOptions(spec),
    handler: async (ctx) => {
      const state = deps.app.state;
      const found = spec.find(ctx, state);
      if (E.isLeft(found)) return found.left;
      const refused = spec.authorize?.(ctx, state, found.right) ?? null;
      if (refused) return refused;
      const asked = spec.command(ctx, found.right);
      // Most commands are built synchronously: awaiting one anyway cost a promise and a turn of the microtask queue.
      const command = asked instanceof Promise ? await asked : asked;
      if (isDomainError(command)) return command;
      const result = await deps.app.execute(ctx.actor, command);
      if (E.isLeft(result)) return spec.error ? spec.error(result.left) : result.left;
      return spec.present(result.right, ctx, found.right);
    },
  });

export interface ListRouteSpec<P, F, T> extends RouteBase<P> {
  readonly find: Find<P, F>;
  readonly authorize?: Authorize<P, F>;
  /**
   * The rows, in order: an array or a random-access source (a page costs the page); a promise of them where a
   * filter must read git first.
   */
  readonly rows: (ctx: HandlerContext<P>, state: State, found: F) => OffsetSource<T> | readonly T[] | Promise<readonly T[]>;
  /** `ctx`: the request, for entities its parameters choose (`view=simple`). */
  readonly present: (row: T, view: PresentContext, found: F, ctx: HandlerContext<P>) => unknown;
  readonly paginate?: Omit<PaginateOptions<T>, 'map'>;
}

export const listRoute = <P, F, T>(deps: ApiDeps, spec: ListRouteSpec<P, F, T>): RouteDef<P> =>
  route<P>({
    method: 'GET',
    path: spec.path,
    ...routeOptions(spec),
    handler: (ctx) => {
      const state = deps.app.state;
      const found = spec.find(ctx, state);
      if (E.isLeft(found)) return found.left;
      const refused = spec.authorize?.(ctx, state, found.right) ?? null;
      if (refused) return refused;
      const rows = spec.rows(ctx, state, found.right);
      const page = (listed: OffsetSource<T> | readonly T[]) => {
        const view = presentContext(deps, ctx, state);
        return paginate(ctx, isSource(listed) ? listed : arraySource(listed), { ...spec.paginate, map: (row) => spec.present(row, view, found.right, ctx) });
      };
      // Only a promise is awaited: the lists that need no git answer in the same turn, as before.
      return rows instanceof Promise ? rows.then(page) : page(rows);
    },
  });

const isSource = <T>(rows: OffsetSource<T> | readonly T[]): rows is OffsetSource<T> => !Array.isArray(rows);

const routeOptions = <P>(spec: RouteBase<P>) => ({
  ...(spec.params ? { params: spec.params } : {}),
  ...(spec.auth ? { auth: spec.auth } : {}),
  ...(spec.admin ? { admin: spec.admin } : {}),
  ...(spec.scopes ? { scopes: spec.scopes } : {}),
  ...(spec.readScopes ? { readScopes: spec.readScopes } : {}),
  ...(spec.before ? { before: spec.before } : {}),
  ...(spec.cache === false ? { cache: false as const } : {}),
});

/** `find_group!` on the route's `:id`. */
export const groupOfRoute = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Group> => findReadableGroup(state, ctx, String(ctx.routeParams['id']));

/** `find_project!` on the route's `:id`. */
export const projectOfRoute = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Project> => findReadableProject(state, ctx, String(ctx.routeParams['id']));

/** Routes that act on nothing found first. */
export const nothing = (): E.Either<DomainError, null> => E.right(null);

/**
 * A value made once per request and read again later in it (a token's secret: its digest goes into the command,
 * the value itself into the answer).
 */
export const perRequest = <T>(make: () => T): ((ctx: object) => T) => {
  const values = new WeakMap<object, T>();
  return (ctx) => {
    let value = values.get(ctx);
    if (value === undefined) {
      value = make();
      values.set(ctx, value);
    }
    return value;
  };
};
