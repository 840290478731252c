/**
 * Declarative routes under a mount prefix, matched the way Grape/Mustermann does it:
 * - the request path is normalised first (`//` squeezed, trailing `/` dropped) — Grape `normalize_path`;
 * - `:name` matches one raw segment `[^/]+` and is percent-decoded after matching (`parent%2Fchild` is one id,
 *   an unencoded slash matches nothing); `:name*` (last segment only) matches the rest of the path (Grape
 *   requirement `/.+/`, used by SCIM user ids);
 * - literal segments compare exactly; the first declared route wins (`members/all` before `members/:user_id`);
 * - a `.json` format suffix is stripped when the bare path matches (Grape `(.:format)`);
 * - HEAD is served by GET routes; OPTIONS answers 204 with `Allow`; a known path with another method is 405.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Either } from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { Actor, DomainError } from '@forgefold/core';
import type { AuthMode, Principal } from './auth.js';
import { decodePathSegment } from './params.js';
import type { Reply } from './response.js';
import type { RawParams, Schema } from './validation.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestInfo {
  readonly method: string;
  /** The raw path (still percent-encoded), without the query string. */
  readonly path: string;
  /** The raw query string without `?` ('' when none). */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  readonly requestId: string;
  /** Scheme + host (+ port) for absolute URLs: the configured external URL, else `http://<Host>`. */
  readonly baseUrl: string;
}

/** What a handler (and a `before` hook) receives. */
export interface HandlerContext<P = unknown> {
  /** Validated, coerced params (declared keys only; defaults applied). */
  readonly params: P;
  /**
   * All raw params: query, overridden by body, overridden by route params. Of a body parsed off the event loop
   * (a large one, see `body-worker.ts`), only the names the route's schema reads, pagination's, and the
   * credentials when they are text.
   */
  readonly raw: RawParams;
  readonly routeParams: Readonly<Record<string, string>>;
  readonly query: RawParams;
  /** The body as it came: a route that reads a body of its own (SCIM) parses it from here. */
  readonly rawBody: Buffer;
  readonly actor: Actor;
  readonly principal: Principal | null;
  /** The credential found on the request (for routes with their own token check, e.g. SCIM `auth: 'none'`). */
  readonly token: string | null;
  readonly request: RequestInfo;
  readonly route: CompiledRoute;
}

/**
 * A handler's result:
 * - a `Reply` (`ok`, `created`, `noContent`, `json`, `paginate(...)`…);
 * - a core `DomainError` (rendered by `domainErrorResponse`);
 * - an fp-ts `Either<DomainError, unknown>`: Left → error; Right → JSON body with the default status
 *   (or the Reply it holds);
 * - any other value → JSON body with the default status (201 POST, 200 otherwise); `undefined` → empty body
 *   (204, or 201 for POST).
 * Handlers may also throw `ApiError` or a DomainError.
 */
export type HandlerResult = Reply | DomainError | Either<DomainError, unknown> | unknown;

export interface RouteDef<P = unknown> {
  readonly method: HttpMethod;
  /** Relative to the mount prefix: '/groups/:id/members/:user_id'. */
  readonly path: string;
  /** Params schema (see `schema`, `requires`, `optional`); none → `params` is `{}`. */
  readonly params?: Schema<P>;
  /** Default 'required' (GitLab `before { authenticate! }`). */
  readonly auth?: AuthMode;
  /** Extra token scopes accepted besides api/read_api, e.g. ['read_user']. */
  readonly scopes?: readonly string[];
  /**
   * Scopes the route's endpoint class registers for reads only (`allow_access_with_scope :read_user, if: get?`):
   * accepted on GET/HEAD, and listed first in every insufficient_scope answer of the class, writes included.
   */
  readonly readScopes?: readonly string[];
  /** `authenticated_as_admin!` before validation. */
  readonly admin?: boolean;
  /**
   * Grape `before` block: runs after authentication and before param validation (e.g. `find_project!` +
   * `authorize!`, which then win over a 400). Return or throw an error to stop; return nothing to continue.
   */
  readonly before?: (ctx: HandlerContext<unknown>) => void | DomainError | Promise<void | DomainError>;
  readonly handler: (ctx: HandlerContext<P>) => HandlerResult | Promise<HandlerResult>;
  /** Free-form name for logs. */
  readonly name?: string;
  /** GET responses are cached until the application's state changes; false opts a route out. */
  readonly cache?: boolean;
}

/**
 * A route with its params type erased, as mounts and the router hold it: its handler receives the params its own
 * schema decoded (io-ts codecs are invariant in their type, so the schema is erased to a decoder).
 */
export type AnyRouteDef = Omit<RouteDef<never>, 'params'> & { readonly params?: t.Decoder<unknown, unknown> & Pick<Schema<unknown>, 'names'> };

/** Identity helper so TypeScript infers `P` from `params`. */
export function route<P = Record<string, never>>(def: RouteDef<P>): RouteDef<P> {
  return def;
}

export interface MountOptions {
  /** Response content type for this mount (default `application/json`; SCIM: `application/scim+json`). */
  readonly contentType?: string;
  /** Default auth mode for routes of this mount (default 'required'). */
  readonly auth?: AuthMode;
  /** `{"error":"404 Not Found"}` for unknown paths under this prefix (default true). */
  readonly catchAll?: boolean;
  /**
   * Renders the adapter's own errors (unknown route, wrong method, malformed body, parameter validation)
   * in this mount's error format, e.g. SCIM's error schema. Receives the status and the platform body.
   */
  readonly renderError?: (status: number, body: unknown) => unknown;
}

export interface Mount {
  readonly prefix: string;
  readonly routes: readonly AnyRouteDef[];
  readonly options: MountOptions;
}

export function mount(prefix: string, routes: readonly AnyRouteDef[], options: MountOptions = {}): Mount {
  return { prefix: normalizePath(prefix), routes, options };
}

type Segment = { kind: 'literal'; value: string } | { kind: 'param'; name: string } | { kind: 'rest'; name: string };

export interface CompiledRoute {
  readonly def: AnyRouteDef;
  readonly mount: Mount;
  /** Full pattern, prefix included, e.g. '/api/v4/groups/:id/members'. */
  readonly pattern: string;
  /** For logs and metrics: the route's `name`, else 'GET /api/v4/groups/:id/members' (built once, not per request). */
  readonly name: string;
  readonly segments: readonly Segment[];
}

export type MatchResult =
  | { readonly kind: 'match'; readonly route: CompiledRoute; readonly params: Record<string, string> }
  | { readonly kind: 'options'; readonly allow: readonly string[]; readonly mount: Mount }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[]; readonly mount: Mount }
  | { readonly kind: 'not_found'; readonly mount: Mount | null }
  | { readonly kind: 'gone' };

/** Grape `Router.normalize_path`: leading '/', squeeze '/', drop trailing '/'. */
export function normalizePath(path: string): string {
  const p = `/${path}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

const splitPath = (p: string): string[] => (p === '/' ? [] : p.slice(1).split('/'));

function compile(def: AnyRouteDef, m: Mount): CompiledRoute {
  const pattern = normalizePath(`${m.prefix}/${def.path}`);
  const parts = splitPath(pattern);
  const segments: Segment[] = parts.map((part, i) => {
    if (part.startsWith(':')) {
      if (part.endsWith('*')) {
        if (i !== parts.length - 1) throw new Error(`rest parameter must be last: ${pattern}`);
        return { kind: 'rest', name: part.slice(1, -1) };
      }
      return { kind: 'param', name: part.slice(1) };
    }
    return { kind: 'literal', value: part };
  });
  return { def, mount: m, pattern, name: def.name ?? `${def.method} ${pattern}`, segments };
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | null {
  // Every route is tried in turn: one of another length is refused before anything is allocated for it.
  if (segments.length !== parts.length && segments[segments.length - 1]?.kind !== 'rest') return null;
  // Made at the first parameter: the routes of the same length tried before the right one mostly fail on a
  // literal, and each allocated an object for nothing (a few hundred bytes per request).
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.kind === 'rest') {
      if (i >= parts.length) return null;
      const decoded = parts.slice(i).map(decodePathSegment);
      if (decoded.some((d) => d === null || d === '')) return null;
      params ??= {};
      params[seg.name] = decoded.join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined || part === '') return null;
    if (seg.kind === 'literal') {
      if (part !== seg.value) return null;
    } else {
      const d = decodePathSegment(part);
      if (d === null) return null;
      params ??= {};
      params[seg.name] = d;
    }
  }
  return segments.length === parts.length ? (params ?? {}) : null;
}

const API_V3 = /^\/api\/v3(?:\/|$)/;

function allowHeader(methods: Iterable<string>): string[] {
  const set = new Set<string>(methods);
  const out = [...set];
  if (set.has('GET') && !set.has('HEAD')) out.splice(out.indexOf('GET') + 1, 0, 'HEAD');
  out.push('OPTIONS');
  return out;
}

export class Router {
  readonly routes: readonly CompiledRoute[];
  readonly mounts: readonly Mount[];

  constructor(mounts: readonly Mount[]) {
    this.mounts = mounts;
    this.routes = mounts.flatMap((m) => m.routes.map((r) => compile(r, m)));
  }

  /** The mount whose prefix covers `path` (longest prefix). */
  mountFor(path: string): Mount | null {
    let best: Mount | null = null;
    for (const m of this.mounts) {
      if (m.prefix === '/' || path === m.prefix || path.startsWith(`${m.prefix}/`)) {
        if (!best || m.prefix.length > best.prefix.length) best = m;
      }
    }
    return best;
  }

  match(method: string, rawPath: string): MatchResult {
    const path = normalizePath(rawPath);
    if (API_V3.test(path)) return { kind: 'gone' };
    if (path.endsWith('.json')) {
      // Grape's `(.:format)`: the suffix is a format, not part of the last parameter.
      const alt = this.matchPath(method, path.slice(0, -'.json'.length));
      if (alt.kind !== 'not_found') return alt;
    }
    return this.matchPath(method, path);
  }

  private matchPath(method: string, path: string): MatchResult {
    const parts = splitPath(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    const allowed: string[] = [];
    let allowedMount: Mount | null = null;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.def.method === wanted) return { kind: 'match', route, params };
      allowed.push(route.def.method);
      allowedMount ??= route.mount;
    }
    if (allowed.length > 0 && allowedMount) {
      const allow = allowHeader(allowed);
      return method === 'OPTIONS'
        ? { kind: 'options', allow, mount: allowedMount }
        : { kind: 'method_not_allowed', allow, mount: allowedMount };
    }
    return { kind: 'not_found', mount: this.mountFor(path) };
  }
}
