/**
 * What every route file needs: the application, the clock, the server's configuration, and small
 * helpers that give the platform's semantics to lookups (`find_group!`, `find_project!`, `find_user!`)
 * and run commands as the request's actor.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  canReadGroup,
  canReadProject,
  findGroupByIdOrPath,
  findProjectByIdOrPath,
  findUser,
  groupProjectCandidates,
  isAdmin,
  listProjects,
  notFound,
  projectCandidates,
  selfAndDescendants,
  unauthorized,
  type Application,
  type Clock,
  type CommandResult,
  type DomainError,
  type ForgefoldCommand,
  type Group,
  type Project,
  type State,
  type User,
  settingInteger,
} from '@forgefold/core';
import type { HandlerContext } from '../http/index.js';
import type { PresentContext } from '../resources/context.js';
import type { RepositoryHost } from './repositories.js';
import type { SecretBox } from './secrets.js';
import type { GeoRuntime } from './geo.js';

export interface ServerConfig {
  /** The platform's `impersonation_enabled`; impersonation tokens are refused when false. */
  readonly impersonationEnabled: boolean;
  /** The external URL (FORGEFOLD_EXTERNAL_URL) used in web_url and pagination links, without trailing slash. */
  readonly externalUrl?: string;
  /** Gravatar URL template for users without an uploaded avatar; unset: `avatar_url` is null for them. */
  readonly gravatarUrl?: string;
  /** Geo's shared secret (FORGEFOLD_GEO_SECRET): secondaries read the log and fetch repositories with it. */
  readonly geoSecret?: string;
}

/** Where uploaded files (avatars) are kept, addressed by the SHA-256 of their bytes. */
export interface UploadStore {
  /** Stores the bytes (idempotent) and resolves to their SHA-256, in hex. */
  put(data: Buffer): Promise<string>;
  /** The bytes stored under that digest, or undefined. */
  get(sha256: string): Promise<Buffer | undefined>;
}

export interface ApiDeps {
  readonly app: Application<ForgefoldCommand, State>;
  readonly clock: Clock;
  readonly config: ServerConfig;
  /** The git repositories and the recording of their ref moves. */
  readonly repositories: RepositoryHost;
  readonly uploads: UploadStore;
  /** Encrypts secrets (cluster tokens and certificates) before they enter a command. */
  readonly secrets: SecretBox;
  /** Geo: the node's name, live status and sync failures (default: a primary's, from the log's head). */
  readonly geo?: GeoRuntime;
}

export type Ctx = HandlerContext<unknown>;

/** Runs a command as the request's actor (the sudo target, with the real user recorded beside it). */
export const execute = (deps: ApiDeps, ctx: Ctx, command: ForgefoldCommand): Promise<E.Either<DomainError, CommandResult<State>>> =>
  deps.app.execute(ctx.actor, command);

export const presentContext = (deps: ApiDeps, ctx: Ctx, state: State = deps.app.state): PresentContext => ({
  state,
  baseUrl: deps.config.externalUrl ?? ctx.request.baseUrl,
  viewerId: ctx.principal?.userId ?? null,
  viewerIsAdmin: ctx.principal?.isAdmin ?? false,
  ...(deps.config.gravatarUrl ? { gravatarUrl: deps.config.gravatarUrl } : {}),
});

export const viewerId = (ctx: Ctx): number | null => ctx.principal?.userId ?? null;

/**
 * The projects an instance-wide list starts from: every one for an administrator; for anyone else those their
 * memberships open, and the public (and, signed in, internal) ones when `visibleToAll`. What the caller can see, not
 * every project (issue 16, "Scale of reads").
 */
export const listableProjects = (ctx: Ctx, state: State, visibleToAll: boolean): Iterable<Project> => {
  const principal = ctx.principal;
  if (principal !== null && (principal.isAdmin || isAdmin(state, principal.userId))) return listProjects(state.projects);
  return projectCandidates(state, principal?.userId ?? null, visibleToAll);
};

/**
 * The projects a group list of issues or merge requests starts from (the group's and every subgroup's, as the finders'
 * `include_subgroups: true`): per group, every project when the caller reads them all through the group, else those
 * it may see by visibility and those its own memberships open (`groupProjectCandidates`), in id order. A superset of
 * the readable ones, which the lists filter as they would filter every project of the subtree; what the caller can
 * see, not the size of the subtree (issue 16, "Scale of reads").
 */
export const groupTreeProjects = (ctx: Ctx, state: State, group: Group): Project[] => groupProjectCandidates(state, viewerId(ctx), selfAndDescendants(state.groups, group));

/**
 * `find_group!`: by id or full path; a group the caller cannot read is "404 Group Not Found" (not 403),
 * or 401 for an anonymous caller on routes that authenticate non-public access.
 */
export const findReadableGroup = (state: State, ctx: Ctx, id: string, options: { readonly authenticateNonPublic?: boolean } = {}): E.Either<DomainError, Group> => {
  const group = findGroupByIdOrPath(state.groups, id);
  if (group && canReadGroup(state, viewerId(ctx), group)) return E.right(group);
  if (options.authenticateNonPublic && ctx.principal === null) return E.left(unauthorized);
  return E.left(notFound('Group'));
};

/** `find_project!`: as `find_group!`, "404 Project Not Found". A non-numeric id without "/" finds nothing. */
export const findReadableProject = (state: State, ctx: Ctx, id: string, options: { readonly authenticateNonPublic?: boolean } = {}): E.Either<DomainError, Project> => {
  const project = findProjectByIdOrPath(state.projects, id);
  if (project && canReadProject(state, viewerId(ctx), project)) return E.right(project);
  if (options.authenticateNonPublic && ctx.principal === null) return E.left(unauthorized);
  return E.left(notFound('Project'));
};

export const findUserOr404 = (state: State, id: number): E.Either<DomainError, User> => {
  const user = findUser(state.users, id);
  return user ? E.right(user) : E.left(notFound('User'));
};

/** `Date.current` from the clock port, as "YYYY-MM-DD". */
export const today = (deps: ApiDeps): string => deps.clock.now().slice(0, 10);

/** The id carried by the first event of a type in a command's result (e.g. the new group's id). */
export const createdId = (result: CommandResult<State>, type: string): number => {
  const event = result.events.find((candidate) => candidate.type === type);
  if (!event) throw new Error(`no ${type} event in the result`);
  return (event.data as { id: number }).id;
};

/** The instance's diff limits for the git port: a file's patch of `diff_max_patch_bytes` or more is `too_large`. */
export const diffLimits = (deps: ApiDeps): { readonly maxPatchBytes: number } => ({ maxPatchBytes: settingInteger(deps.app.state.settings, 'diff_max_patch_bytes') });
