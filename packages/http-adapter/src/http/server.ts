/**
 * The server shell: one request pipeline for every route, over `node:http`.
 *
 * A request goes through named stages, each a small function over its `Exchange` (the per-request context):
 * identify (request id) → limits (URL length 414) → operator endpoints (health, readiness, metrics) → early
 * cache (a repeated read) → route (404 / 405 / 410 / OPTIONS) → read body and params (400 / 413) → authenticate
 * (401 / 403 / 404) → late cache → before hook → validate params (400) → handler → render and send (JSON,
 * ETag / 304). Any failure is rendered by `renderError` (unexpected exceptions are logged and answered 500
 * `{"message":"500 Internal Server Error"}`); `closeExchange` counts the request for `/-/metrics` and writes one
 * JSON access-log line.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { hash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { authenticateRequest, type AuthBackend, type AuthOutcome, type Principal, type TokenKind } from './auth.js';
import {
  API_V3_GONE_BODY,
  ApiError,
  errorToResponse,
  isDomainError,
  METHOD_NOT_ALLOWED_BODY,
  ROUTE_NOT_FOUND_BODY,
  serviceUnavailable,
} from './errors.js';
import { BodyWorker, bodyNames, DEFAULT_PARSE_IN_WORKER_BYTES, mergePickedParams } from './body-worker.js';
import {
  ClientClosedRequest,
  bodyFaultError,
  bodyFormat,
  isMalformedString,
  malformedStringError,
  mergeParams,
  parseBody,
  parseQueryString,
  readBody,
} from './params.js';
import { isReply, json, JSON_CONTENT_TYPE, renderReply, sendRendered, writeReply, type RenderedReply, type Reply, withStatus } from './response.js';
import { Router, type CompiledRoute, type HandlerContext, type Mount, type RequestInfo } from './router.js';
import { ResponseCache, type ResponseCacheOptions } from './cache.js';
import { decodeParams, type RawParams } from './validation.js';
import { DEFAULT_METRICS_ALLOW, gaugeText, METRICS_PATH, metricsAllowList, PROMETHEUS_CONTENT_TYPE, RequestMetrics, type MetricsOptions } from './metrics.js';

export interface Limits {
  /** Maximum request-target length in bytes (path + query); beyond → 414. Default 8192. */
  readonly maxUrlBytes: number;
  /** Maximum body size in bytes; beyond → 413. Default 10 MiB. */
  readonly maxBodyBytes: number;
  /**
   * Header-block limit (header lines, beyond the request line); beyond → 431. Default 64 KiB. Node's parser
   * counts the request line in its limit, so it is given `maxUrlBytes + maxHeaderBytes`: a target up to the
   * URL limit always reaches the 414 check.
   */
  readonly maxHeaderBytes: number;
  /** Grape's 415 for unsupported request media types instead of ignoring the body. Default false. */
  readonly rejectUnsupportedContentType: boolean;
  /**
   * Bodies (JSON, forms, multipart) of at least this many bytes are parsed in a worker thread, of which a route gets
   * the names it reads (see `body-worker.ts`). Default 64 KiB; `Infinity`: none.
   */
  readonly parseInWorkerBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxUrlBytes: 8 * 1024,
  maxBodyBytes: 10 * 1024 * 1024,
  maxHeaderBytes: 64 * 1024,
  rejectUnsupportedContentType: false,
  parseInWorkerBytes: DEFAULT_PARSE_IN_WORKER_BYTES,
};

/**
 * How long a connection may hold the server. Zero turns one off. The header and request time-outs are checked
 * every second (more often when they are shorter), not node's default 30 s.
 */
export interface Timeouts {
  /** Time to receive a request's header block; beyond → 408 and the connection closes. Default 10 s. */
  readonly headersMs: number;
  /** Time to receive a whole request, headers and body; beyond → the connection closes. Default 60 s. */
  readonly requestMs: number;
  /** How long an idle keep-alive connection waits for its next request. Default 5 s (node's). */
  readonly keepAliveMs: number;
  /** A connection without traffic either way for this long is closed (a client that stopped reading). Default 60 s. */
  readonly idleMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  headersMs: 10_000,
  requestMs: 60_000,
  keepAliveMs: 5_000,
  idleMs: 60_000,
};

/** Throws when the time-outs cannot work together (node refuses a header time-out above the request time-out). */
export function checkTimeouts(timeouts: Timeouts): void {
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer of milliseconds, got ${value}`);
  }
  if (timeouts.requestMs > 0 && timeouts.headersMs > timeouts.requestMs) {
    throw new RangeError(`the headers time-out (${timeouts.headersMs} ms) must not exceed the request time-out (${timeouts.requestMs} ms)`);
  }
}

export type LogEntry = Readonly<Record<string, unknown>>;
export type LogSink = (entry: LogEntry) => void;

/**
 * A route that answers a request itself and streams (git's smart HTTP): no body parsing, JSON, caching or token
 * authentication by the pipeline; it gets the request and its response and reports whom it served.
 */
export interface RawRoute {
  /** For logs and metrics. */
  readonly name: string;
  readonly matches: (path: string) => boolean;
  readonly handle: (req: IncomingMessage, res: ServerResponse, request: RequestInfo) => Promise<{ readonly userId: number | null }>;
  /** Called when the server starts closing: a route holding requests open (a long poll) answers them now. */
  readonly close?: () => void;
}

/** What a gate sees of a request: who sent it, once authenticated (the token's owner, not a sudo target). */
export interface GateRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly ip: string;
  readonly userId: number | null;
  readonly baseUrl: string;
}

/**
 * Middleware in front of the API, as the platform's Rack stack has it (Rack::Attack's throttles, the read-only
 * middleware): a reply refuses the request before its handler runs. Called for cached reads too.
 */
export interface RequestGate {
  readonly admit: (request: GateRequest) => Reply | null;
}

/** What the read-only middleware sees of a request: it runs before routing and authentication, so no user. */
export interface ReadOnlyRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingMessage['headers'];
  readonly baseUrl: string;
}

/**
 * The read-only middleware (Gitlab::Middleware::ReadOnly): runs first for every request, streaming routes included,
 * as the platform's sits in front of its router, its authentication and Rack::Attack; a reply refuses the request.
 */
export interface ReadOnlyGate {
  readonly admit: (request: ReadOnlyRequest) => Reply | null;
}

export interface ApiServerOptions {
  readonly routes: readonly Mount[];
  /** Throttles (see `RequestGate`). */
  readonly gate?: RequestGate;
  /** Streaming routes tried before the API's (e.g. `/<namespace>/<project>.git/info/refs`). */
  readonly rawRoutes?: readonly RawRoute[];
  readonly authBackend: AuthBackend;
  /**
   * A request's credentials were accepted and nothing refused it before its route ran: authentication, scopes,
   * sudo, the route's administrator rule and the throttles all let it through (what a token's `last_used_at` and a
   * user's `last_activity_on` follow), a read the route cache answers included. Not called for a refused request,
   * nor for a read the early cache answered (see `earlyCacheable`).
   */
  readonly onAdmitted?: (principal: Principal) => void;
  /**
   * Whether a read of this caller may be answered by the early cache, which skips authentication and so
   * `onAdmitted` (absent: always). A token whose use falls due later the same day is not: its request must reach
   * `onAdmitted` then (a cached reply lasts the day).
   */
  readonly earlyCacheable?: (principal: Principal) => boolean;
  /** e.g. 'https://gitlab.example.com' — used for pagination links; else `http://<Host header>`. */
  readonly externalUrl?: string;
  readonly limits?: Partial<Limits>;
  readonly timeouts?: Partial<Timeouts>;
  /** Access-log and error-log sink (one object per line). Default: JSON lines on stdout. */
  readonly log?: LogSink;
  /** False: no access-log line is built (errors still go to `log`). Default true. */
  readonly accessLog?: boolean;
  /** `/-/readiness` check: false or a thrown error → 503. */
  readonly readiness?: () => boolean | Promise<boolean>;
  /** Caches rendered GET responses until `version()` changes (see cache.ts). */
  readonly responseCache?: ResponseCacheOptions;
  /** The read-only middleware (see `ReadOnlyGate`). */
  readonly readOnly?: ReadOnlyGate;
  /** The product's own version: in `/-/readiness` (`forgefold_version`) and `/-/metrics` (`forgefold_build_info`). */
  readonly version?: string;
  /** `/-/metrics`: who may read it (default loopback) and the host's own metrics. */
  readonly metrics?: MetricsOptions;
  /** Read-your-writes across nodes (see `PositionOptions`). */
  readonly position?: PositionOptions;
}

/**
 * Nodes sharing one log: every reply names the log position it reflects (`X-Forgefold-Position`), and a request
 * carrying `X-Forgefold-Min-Position: N` is answered only once this node has folded the log up to N, waiting for
 * at most `waitMs`, else 503 with `Retry-After: 1`.
 */
export interface PositionOptions {
  current(): number;
  waitFor(min: number, timeoutMs: number): Promise<boolean>;
  readonly waitMs: number;
}

export const POSITION_HEADER = 'X-Forgefold-Position';
export const MIN_POSITION_HEADER = 'x-forgefold-min-position';

export interface ApiServer {
  readonly server: Server;
  readonly router: Router;
  /** Resolves once accepting; returns the bound address and base URL. */
  listen(port: number, host?: string): Promise<{ port: number; host: string; url: string }>;
  /** Stops accepting, lets in-flight requests finish, then closes idle connections. */
  close(): Promise<void>;
  /** The request handler itself (usable with any `node:http` server). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const defaultSink: LogSink = (entry) => {
  process.stdout.write(`${JSON.stringify(entry)}\n`);
};

const REQUEST_ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
const HEALTH_PATHS = new Set(['/-/health', '/-/liveness', '/-/readiness']);
// The prefix first: every other path skips hashing itself for the set (a fresh string per request).
const isOperatorPath = (path: string): boolean => path.startsWith('/-/') && (HEALTH_PATHS.has(path) || path === METRICS_PATH);
/** Route names of the operator endpoints, for the access log and the metrics (built once). */
const OPERATOR_ROUTE_NAMES = new Map([...HEALTH_PATHS, METRICS_PATH].map((path) => [path, `GET ${path}`]));

function isEither(u: unknown): u is { _tag: 'Left'; left: unknown } | { _tag: 'Right'; right: unknown } {
  if (typeof u !== 'object' || u === null) return false;
  const tag = (u as { _tag?: unknown })._tag;
  return (tag === 'Left' && 'left' in u) || (tag === 'Right' && 'right' in u);
}

/** Normalises a handler result to a Reply (see `HandlerResult`). */
export function toReply(result: unknown): Reply {
  if (isReply(result)) return result;
  if (isDomainError(result)) throw ApiError.domain(result);
  if (isEither(result)) {
    if (result._tag === 'Left') {
      if (isDomainError(result.left)) throw ApiError.domain(result.left);
      throw result.left;
    }
    return toReply(result.right);
  }
  return json(result);
}

/** A cached reply remembered with the caller it was computed for, so that a repeat can be logged alike. */
interface CachedExchange extends RenderedReply {
  readonly userId: number | null;
  readonly sudoFromId: number | null;
  readonly routeName: string | undefined;
}

/**
 * What a read's reply can depend on besides the state: method, target (path and query, which may carry
 * `private_token`, `access_token` or `sudo`), host, and the credential headers. Hashed, so that the cache
 * does not keep tokens.
 */
const exchangeKeyOf = (method: string, target: string, headers: IncomingMessage['headers']): string =>
  hash(
    'sha256',
    `${method} ${target}\0${headers.host ?? ''}\0${headers['private-token'] ?? ''}\0${headers.authorization ?? ''}\0${headers.sudo ?? ''}\0${headers.cookie ?? ''}`,
    'base64',
  );

/** What an exchange key was worked out from: the request's target, host and credential headers. */
interface ExchangeKeyMemo {
  method: string;
  target: string;
  host: string | undefined;
  privateToken: string | string[] | undefined;
  authorization: string | undefined;
  sudo: string | string[] | undefined;
  cookie: string | undefined;
  key: string;
}

/**
 * Where a connection keeps its latest exchange key (see `exchangeKeyFor`): a property of the socket under a symbol
 * of this module, as node keeps its own per-connection state, rather than a WeakMap of sockets, whose lookup (the
 * socket's identity hash, then the table) cost as much again at 100 connections.
 */
const EXCHANGE_KEY = Symbol('forgefold.exchangeKey');
type KeyedSocket = Socket & { [EXCHANGE_KEY]?: ExchangeKeyMemo };

/**
 * Credentials whose validity changes only with the state or the day, both part of the cache's version. An
 * OAuth access token expires by the second: its requests are authenticated every time.
 */
const DAY_BOUND_CREDENTIALS: ReadonlySet<TokenKind> = new Set(['personal', 'impersonation', 'project', 'group']);

function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

function checkPathEncoding(path: string): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw malformedStringError('the path');
  }
  if (isMalformedString(decoded)) throw malformedStringError('the path');
}

const REQUEST_LINE_START = /^[A-Z]+ \S/;
const REQUEST_LINE_TAIL = /^\S* HTTP\/\d\.\d$/;

/**
 * Whether the bytes on which the parser overflowed belong to an over-long request target rather than to the
 * header lines: they start a request line without ending it (or end it beyond the URL limit), or they end one
 * (a target's tail and the version). The parser reports neither, and only the latest read's bytes are at hand:
 * a target whose middle arrives in a read of its own is answered 431.
 */
function overflowIsTarget(chunk: unknown, maxUrlBytes: number): boolean {
  if (!Buffer.isBuffer(chunk)) return false;
  const lineEnd = chunk.indexOf('\r\n');
  const firstLine = chunk.subarray(0, lineEnd === -1 ? Math.min(chunk.length, maxUrlBytes + 64) : lineEnd).toString('latin1');
  if (REQUEST_LINE_START.test(firstLine)) return lineEnd === -1 || firstLine.length > maxUrlBytes;
  return lineEnd !== -1 && REQUEST_LINE_TAIL.test(firstLine);
}

const isRead = (method: string): boolean => method === 'GET' || method === 'HEAD';

/**
 * One request on its way through the stages: what it asked, and what the stages learnt and answered. One
 * object per request, created with every field, so that each stage is a function of it alone.
 */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly started: number;
  readonly requestId: string;
  /** Headers of this exchange rather than of a reply (request id, `Connection`), names and values alternating. */
  readonly exchangeHeaders: string[];
  /** Path and query string of the target (both '' until the target was checked). */
  path: string;
  query: string;
  /** The path as logged (a long target's is cut short). */
  logPath: string;
  /** The early cache's key for a repeatable read, or null. */
  exchangeKey: string | null;
  /** The mount whose content type and error format the replies use, once routed. */
  mount: Mount | null;
  contentType: string;
  routeName: string | undefined;
  userId: number | null;
  sudoFromId: number | null;
  /** The status written; 500 until a reply is. */
  status: number;
  /** Whether a stage read the body; an unread one is discarded when the exchange closes. */
  bodyConsumed: boolean;
  /** `X-Forgefold-Min-Position`, when given and not yet reached. */
  minPosition: number | null;
}

/** The parameters of a request, parsed from its query string, its body and its path. */
interface RequestInput {
  readonly query: RawParams;
  readonly rawBody: Buffer;
  /** Query, overridden by body, overridden by route params (Grape); of a large body, the names the route reads. */
  readonly raw: RawParams;
}

/** The route cache's slot for this request: where a rendered 200 goes, at the version it was computed at. */
interface RouteCacheSlot {
  readonly key: string;
  readonly version: string;
}

/**
 * What the read-only middleware sees of a request; the base URL is worked out only when a refusal needs it (this
 * runs for every request, cached reads included). A class with the getter on its prototype, not an object literal
 * with a getter: such a literal made a closure per request that V8 kept reachable from old space until the next
 * full collection, so every request's objects (the exchange, the request, the response) survived the young
 * generation's collections and were promoted — ~2.5 MB per scavenge and a full collection every ~0.5 s under a load
 * of cached reads (measured with --trace-gc-nvp; without the literal nothing is promoted, as in a bare server).
 */
class ReadOnlyView implements ReadOnlyRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingMessage['headers'];

  constructor(
    private readonly exchange: Exchange,
    private readonly baseUrlOf: (exchange: Exchange) => string,
  ) {
    this.method = exchange.method;
    this.path = exchange.path;
    this.query = exchange.query;
    this.headers = exchange.req.headers;
  }

  get baseUrl(): string {
    return this.baseUrlOf(this.exchange);
  }
}

/**
 * What the throttles see of a request, made for every request a gate is asked about (cached reads too): the client's
 * address and the base URL are worked out only when read (a throttle that counts by address, a refusal that links),
 * not for each request as an object literal with both did (a regular expression over the Host header, an object).
 * A class with its getters on the prototype, for the reason given at `ReadOnlyView`.
 */
class GateView implements GateRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];

  constructor(
    private readonly exchange: Exchange,
    readonly userId: number | null,
    private readonly baseUrlOf: (exchange: Exchange) => string,
  ) {
    this.method = exchange.method;
    this.path = exchange.path;
    this.headers = exchange.req.headers;
  }

  get ip(): string {
    return this.exchange.req.socket.remoteAddress ?? '';
  }

  get baseUrl(): string {
    return this.baseUrlOf(this.exchange);
  }
}

const EMPTY_BODY = Buffer.alloc(0);
/** The status nginx logs for a request its client gave up on before it was answered (never sent). */
const CLIENT_CLOSED_REQUEST = 499;
/** A lingering close ends after this long without a byte from the client (nginx: lingering_timeout 5 s)… */
const LINGER_IDLE_MS = 5_000;
/** …or after this long in all (nginx: lingering_time 30 s). */
const LINGER_MAX_MS = 30_000;
const DONE: Promise<void> = Promise.resolve();

export function createApiServer(options: ApiServerOptions): ApiServer {
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  checkTimeouts(timeouts);
  const router = new Router(options.routes);
  const rawRoutes = options.rawRoutes ?? [];
  const log = options.log ?? defaultSink;
  const accessLog = options.accessLog ?? true;
  const externalUrl = options.externalUrl?.replace(/\/+$/, '');
  const cache = options.responseCache ? new ResponseCache(options.responseCache) : null;
  const requestMetrics = new RequestMetrics();
  const mayReadMetrics = metricsAllowList(options.metrics?.allow ?? DEFAULT_METRICS_ALLOW);
  const bodyWorker = new BodyWorker();
  let closing = false;
  // Sockets that were sent a final `Connection: close` reply: whatever the client still sends on them
  // (say the rest of a body) must not draw a second reply from the clientError handler below.
  const answeredForGood = new WeakSet<Socket>();
  // Sockets whose close waits for the client to stop sending, with their latest request (see lingerOnClose).
  const lingering = new WeakMap<Socket, IncomingMessage>();
  let inFlight = 0;
  let drained: (() => void) | null = null;

  const safeLog = (entry: LogEntry): void => {
    try {
      log(entry);
    } catch {
      /* a broken sink must not break requests */
    }
  };

  // ------------------------------------------------------------------------------------------------
  // Stages, in request order. Each takes the exchange; a failure is thrown and rendered by `renderError`.

  /** Identify: method, request id, and the exchange's own headers. */
  function openExchange(req: IncomingMessage, res: ServerResponse): Exchange {
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID_RE.test(incomingId) ? incomingId : randomUUID();
    const exchangeHeaders = ['X-Request-Id', requestId];
    if (hasBody(req)) lingerOnClose(req);
    if (closing) {
      exchangeHeaders.push('Connection', 'close');
      answeredForGood.add(req.socket);
    }
    return {
      req,
      res,
      method: (req.method ?? 'GET').toUpperCase(),
      started: performance.now(),
      requestId,
      exchangeHeaders,
      path: '',
      query: '',
      logPath: '',
      exchangeKey: null,
      mount: null,
      contentType: JSON_CONTENT_TYPE,
      routeName: undefined,
      userId: null,
      sudoFromId: null,
      status: 500,
      bodyConsumed: false,
      minPosition: null,
    };
  }

  /** Limits: the target's length (414), then its path and query. */
  function checkTarget(x: Exchange): void {
    let target = x.req.url ?? '/';
    // A UTF-16 unit is at most 3 bytes of UTF-8: a short target is within the limit without counting its bytes.
    if (target.length * 3 > limits.maxUrlBytes && Buffer.byteLength(target) > limits.maxUrlBytes) {
      x.logPath = target.split('?')[0]!.slice(0, 256);
      throw ApiError.error(414, '414 Request-URI Too Large');
    }
    const fragment = target.indexOf('#');
    if (fragment !== -1) target = target.slice(0, fragment);
    if (!target.startsWith('/')) {
      // absolute-form (proxies) or garbage
      try {
        const u = new URL(target);
        x.path = u.pathname;
        x.query = u.search.replace(/^\?/, '');
      } catch {
        throw ApiError.error(400, '400 Bad Request');
      }
    } else {
      const q = target.indexOf('?');
      x.path = q === -1 ? target : target.slice(0, q);
      x.query = q === -1 ? '' : target.slice(q + 1);
    }
    x.logPath = x.path;
  }

  const isOperatorEndpoint = (x: Exchange): boolean => isOperatorPath(x.path) && isRead(x.method);

  /** The exchange's own headers for the reply being written, with the log position it reflects. */
  function replyHeaders(x: Exchange): string[] {
    if (!options.position) return x.exchangeHeaders;
    const at = x.exchangeHeaders.indexOf(POSITION_HEADER);
    if (at === -1) x.exchangeHeaders.push(POSITION_HEADER, String(options.position.current()));
    else x.exchangeHeaders[at + 1] = String(options.position.current());
    return x.exchangeHeaders;
  }

  /**
   * Read-your-writes: a position this node has not reached yet sends the request down the asynchronous path
   * (`awaitPosition`); a malformed one is a 400.
   */
  function checkMinPosition(x: Exchange): void {
    if (!options.position) return;
    const header = x.req.headers[MIN_POSITION_HEADER];
    if (header === undefined) return;
    const text = Array.isArray(header) ? header[0]! : header;
    if (!/^\d{1,15}$/.test(text.trim())) throw ApiError.error(400, 'X-Forgefold-Min-Position must be a log position (a non-negative integer)');
    const min = Number(text.trim());
    if (min > options.position.current()) x.minPosition = min;
  }

  async function awaitPosition(x: Exchange): Promise<void> {
    if (x.minPosition === null || !options.position) return;
    if (!(await options.position.waitFor(x.minPosition, options.position.waitMs))) throw serviceUnavailable();
  }

  /** Operator endpoints: liveness answers at once, readiness asks the host, metrics for the allow list only. */
  async function answerOperator(x: Exchange): Promise<void> {
    x.routeName = OPERATOR_ROUTE_NAMES.get(x.path);
    if (x.path === METRICS_PATH) return answerMetrics(x);
    let ready = true;
    if (x.path === '/-/readiness' && options.readiness) {
      try {
        ready = await options.readiness();
      } catch {
        ready = false;
      }
    }
    const body = { status: ready ? 'ok' : 'failed', ...(x.path === '/-/readiness' && options.version ? { forgefold_version: options.version } : {}) };
    x.status = writeReply(x.res, withStatus(ready ? 200 : 503, body, { etag: false }), {
      method: x.method,
      requestHeaders: x.req.headers,
      exchangeHeaders: replyHeaders(x),
      defaultContentType: JSON_CONTENT_TYPE,
    });
  }

  function answerMetrics(x: Exchange): void {
    if (!mayReadMetrics(x.req.socket.remoteAddress)) throw new ApiError(404, ROUTE_NOT_FOUND_BODY);
    const memory = process.memoryUsage();
    const text =
      requestMetrics.text() +
      gaugeText('forgefold_http_requests_in_flight', 'Requests being answered, this one included.', inFlight) +
      (options.version ? gaugeText('forgefold_build_info', 'The running version (always 1).', 1, { version: options.version }) : '') +
      gaugeText('process_resident_memory_bytes', 'Resident set size.', memory.rss) +
      gaugeText('nodejs_heap_used_bytes', 'V8 heap in use.', memory.heapUsed) +
      gaugeText('process_uptime_seconds', 'Seconds since the process started.', Math.round(process.uptime())) +
      (options.metrics?.collect?.() ?? '');
    const reply: Reply = { ...withStatus(200, undefined, { etag: false, contentType: PROMETHEUS_CONTENT_TYPE }), rawBody: text };
    x.status = writeReply(x.res, reply, {
      method: x.method,
      requestHeaders: x.req.headers,
      exchangeHeaders: replyHeaders(x),
      defaultContentType: PROMETHEUS_CONTENT_TYPE,
    });
  }

  /**
   * Early cache: a repeated read is answered before routing, parameters and authentication; the same target
   * and credentials at the same version (log position and day) get the same reply. The hot path: no closure
   * and nothing allocated beyond the key and the reply.
   */
  function answerFromExchangeCache(x: Exchange): boolean {
    if (cache === null || !isRead(x.method) || hasBody(x.req)) return false;
    x.exchangeKey = exchangeKeyFor(x);
    const hit = cache.get(x.exchangeKey) as CachedExchange | undefined;
    if (!hit) return false;
    if (refusedAtGate(x, hit.sudoFromId ?? hit.userId)) return true;
    x.userId = hit.userId;
    x.sudoFromId = hit.sudoFromId;
    x.routeName = hit.routeName;
    x.status = sendRendered(x.res, hit, { method: x.method, requestHeaders: x.req.headers, exchangeHeaders: replyHeaders(x) });
    return true;
  }

  /**
   * The exchange key of a request: the digest of its method, target, host and credentials, worked out again only
   * when one of them differs from the previous request's on the same connection. A client on a keep-alive
   * connection repeats the same request (a poll, a load tool), and the SHA-256 was a twentieth of a cached read's
   * own work. The memo holds the previous request's credential headers for as long as its connection lives (a
   * property of the socket), no longer than node holds the connection's requests; the cache itself still keeps
   * only digests.
   */
  function exchangeKeyFor(x: Exchange): string {
    const headers = x.req.headers;
    const target = x.req.url ?? '/';
    const socket = x.req.socket as KeyedSocket;
    const memo = socket[EXCHANGE_KEY];
    if (
      memo !== undefined &&
      memo.target === target &&
      memo.method === x.method &&
      memo.privateToken === headers['private-token'] &&
      memo.authorization === headers.authorization &&
      memo.host === headers.host &&
      memo.sudo === headers.sudo &&
      memo.cookie === headers.cookie
    )
      return memo.key;
    const key = exchangeKeyOf(x.method, target, headers);
    socket[EXCHANGE_KEY] = {
      method: x.method,
      target,
      host: headers.host,
      privateToken: headers['private-token'],
      authorization: headers.authorization,
      sudo: headers.sudo,
      cookie: headers.cookie,
      key,
    };
    return key;
  }

  const mountContentType = (m: Mount | null): string => m?.options.contentType ?? JSON_CONTENT_TYPE;

  /**
   * Route: the matching route and its path params; 404, 405 and 410 are thrown, OPTIONS is answered (null). A
   * path whose %-escapes are invalid or decode to a malformed string is a 400, as on the platform.
   */
  function routeRequest(x: Exchange): { readonly route: CompiledRoute; readonly params: Record<string, string> } | null {
    if (x.path.includes('%')) checkPathEncoding(x.path);
    const match = router.match(x.method, x.path);
    if (match.kind === 'gone') throw new ApiError(410, API_V3_GONE_BODY);
    x.mount = match.kind === 'match' ? match.route.mount : match.mount;
    x.contentType = mountContentType(x.mount);
    switch (match.kind) {
      case 'not_found':
        throw new ApiError(404, ROUTE_NOT_FOUND_BODY);
      case 'method_not_allowed':
        throw new ApiError(405, METHOD_NOT_ALLOWED_BODY, { Allow: match.allow.join(', ') });
      case 'options':
        x.status = writeReply(x.res, withStatus(204, undefined, { headers: { Allow: match.allow.join(', ') } }), {
          method: x.method,
          requestHeaders: x.req.headers,
          exchangeHeaders: replyHeaders(x),
          defaultContentType: x.contentType,
        });
        return null;
      case 'match':
        x.routeName = match.route.name;
        return match;
    }
  }

  /**
   * Read body and params: query string, body (400 / 413 / 415), merged with the route's path params. A large body
   * (JSON, a form, multipart) is parsed in the worker, and only the names the route reads are taken from it.
   */
  async function readInput(x: Exchange, route: CompiledRoute, routeParams: Readonly<Record<string, string>>): Promise<RequestInput> {
    const query = parseQueryString(x.query);
    const rawBody = hasBody(x.req) ? await readBody(x.req, limits) : EMPTY_BODY;
    x.bodyConsumed = true;
    const contentType = x.req.headers['content-type'];
    const format = rawBody.length !== 0 && rawBody.length >= limits.parseInWorkerBytes ? bodyFormat(x.method, contentType) : null;
    if (format !== null) {
      const reading = await bodyWorker.read(rawBody, format, bodyNames(route, x.method, format));
      if (reading.fault !== null) throw bodyFaultError(format, reading.fault);
      return { query, rawBody, raw: mergePickedParams(query, reading.picked, routeParams) };
    }
    const body = parseBody(rawBody, { method: x.method, contentType, rejectUnsupportedContentType: limits.rejectUnsupportedContentType });
    return { query, rawBody, raw: mergeParams(query, body, routeParams) };
  }

  /** Authenticate: credentials, scopes and sudo (401 / 403 / 404). */
  async function authenticate(x: Exchange, route: CompiledRoute, raw: RawParams): Promise<AuthOutcome> {
    const auth = await authenticateRequest(options.authBackend, {
      method: x.method,
      headers: x.req.headers,
      params: raw,
      requestId: x.requestId,
      route: { auth: authModeOf(route), scopes: route.def.scopes, readScopes: route.def.readScopes, admin: route.def.admin },
    });
    x.userId = auth.principal?.userId ?? null;
    x.sudoFromId = auth.actor.sudoFromId ?? null;
    return auth;
  }

  const authModeOf = (route: CompiledRoute) => route.def.auth ?? route.mount.options.auth ?? 'required';

  /**
   * Late cache: only routes whose caller the adapter authenticated are cached, under a key naming that caller.
   * A read with a body is not: its body's params count, and the key has no room for them.
   */
  function routeCacheSlot(x: Exchange, route: CompiledRoute, principal: Principal | null): RouteCacheSlot | null {
    if (cache === null || !isRead(x.method) || hasBody(x.req) || authModeOf(route) === 'none' || route.def.cache === false) return null;
    const caller = principal ? `${principal.userId}:${principal.realUserId}:${principal.isAdmin}` : '-';
    return { key: `${x.path}?${x.query}|${x.req.headers.host ?? ''}|${caller}`, version: cache.current() };
  }

  /** The early cache learns a reply under the exchange's key, for credentials whose validity lasts the day. */
  function rememberExchange(x: Exchange, principal: Principal | null, rendered: RenderedReply, version: string): void {
    if (cache === null || x.exchangeKey === null || (principal && !DAY_BOUND_CREDENTIALS.has(principal.tokenKind))) return;
    if (principal && options.earlyCacheable && !options.earlyCacheable(principal)) return;
    const exchange: CachedExchange = { ...rendered, userId: x.userId, sudoFromId: x.sudoFromId, routeName: x.routeName };
    cache.set(x.exchangeKey, exchange, version);
  }

  function answerFromRouteCache(x: Exchange, slot: RouteCacheSlot | null, principal: Principal | null): boolean {
    const hit = slot === null ? undefined : cache!.get(slot.key);
    if (!hit) return false;
    rememberExchange(x, principal, hit, slot!.version);
    x.status = sendRendered(x.res, hit, { method: x.method, requestHeaders: x.req.headers, exchangeHeaders: replyHeaders(x) });
    return true;
  }

  const baseUrlOf = (x: Exchange): string => requestInfoOf(x).baseUrl;

  function requestInfoOf(x: Exchange): RequestInfo {
    const hostHeader = x.req.headers.host;
    return {
      method: x.method,
      path: x.path,
      query: x.query,
      headers: x.req.headers,
      requestId: x.requestId,
      baseUrl: externalUrl ?? `http://${hostHeader && /^[A-Za-z0-9.:[\]-]+$/.test(hostHeader) ? hostHeader : 'localhost'}`,
    };
  }

  function handlerContext(request: RequestInfo, route: CompiledRoute, routeParams: Readonly<Record<string, string>>, input: RequestInput, auth: AuthOutcome, params: unknown): HandlerContext<unknown> {
    return {
      params,
      raw: input.raw,
      routeParams,
      query: input.query,
      rawBody: input.rawBody,
      actor: auth.actor,
      principal: auth.principal,
      token: auth.token,
      request,
      route,
    };
  }

  /** Before hook: the route's own lookups and authorisation, which win over a 400 from validation. */
  async function runBeforeHook(route: CompiledRoute, ctx: HandlerContext<unknown>): Promise<void> {
    if (!route.def.before) return;
    const r = await route.def.before(ctx);
    if (r !== undefined && r !== null) toReply(r);
  }

  /** Validate params: the route's schema decodes and coerces the raw params (400). */
  function validateParams(route: CompiledRoute, raw: RawParams): unknown {
    if (!route.def.params) return {};
    const decoded = decodeParams(route.def.params, raw);
    if (!decoded.ok) throw ApiError.error(400, decoded.message);
    return decoded.value;
  }

  /** Render and send: the handler's result as a reply (ETag / 304), remembered by both caches when cacheable. */
  function sendResult(x: Exchange, result: unknown, slot: RouteCacheSlot | null, principal: Principal | null): void {
    const rendered = renderReply(toReply(result), { method: x.method, defaultContentType: x.contentType });
    if (slot !== null && rendered.status === 200) {
      cache!.set(slot.key, rendered, slot.version);
      rememberExchange(x, principal, rendered, slot.version);
    }
    x.status = sendRendered(x.res, rendered, { method: x.method, requestHeaders: x.req.headers, exchangeHeaders: replyHeaders(x) });
  }

  /** Everything after the early cache: route → input → authentication → late cache → hook → params → handler. */
  async function answerRoute(x: Exchange): Promise<void> {
    const match = routeRequest(x);
    if (match === null) return;
    const { route, params: routeParams } = match;
    const input = await readInput(x, route, routeParams);
    let auth: AuthOutcome;
    try {
      auth = await authenticate(x, route, input.raw);
    } catch (e) {
      // A request whose credentials fail counts as unauthenticated (Rack::Attack runs before the API).
      if (refusedAtGate(x, null)) return;
      throw e;
    }
    if (refusedAtGate(x, auth.principal ? auth.principal.realUserId : null)) return;
    if (auth.principal && options.onAdmitted) options.onAdmitted(auth.principal);
    const slot = routeCacheSlot(x, route, auth.principal);
    if (answerFromRouteCache(x, slot, auth.principal)) return;
    const request = requestInfoOf(x);
    // The hook's context (only for routes with a hook) has no params yet; the handler's is a literal of its own
    // rather than a spread of the hook's, which every request paid for.
    if (route.def.before) await runBeforeHook(route, handlerContext(request, route, routeParams, input, auth, {}));
    const params = validateParams(route, input.raw);
    // The params are what this route's own schema decoded: the type its handler declared.
    const result = await route.def.handler(handlerContext(request, route, routeParams, input, auth, params) as HandlerContext<never>);
    sendResult(x, result, slot, auth.principal);
  }

  /** The gate's refusal written as the reply (true), or nothing (false). */
  function refusedAtGate(x: Exchange, userId: number | null): boolean {
    if (!options.gate) return false;
    const refusal = options.gate.admit(new GateView(x, userId, baseUrlOf));
    if (refusal === null) return false;
    x.status = writeReply(x.res, refusal, { method: x.method, requestHeaders: x.req.headers, exchangeHeaders: replyHeaders(x), defaultContentType: x.contentType });
    return true;
  }

  /** The read-only middleware's refusal written as the reply (true), or nothing (false). */
  function refusedReadOnly(x: Exchange): boolean {
    if (!options.readOnly) return false;
    const refusal = options.readOnly.admit(new ReadOnlyView(x, baseUrlOf));
    if (refusal === null) return false;
    x.status = writeReply(x.res, refusal, { method: x.method, requestHeaders: x.req.headers, exchangeHeaders: replyHeaders(x), defaultContentType: x.contentType });
    return true;
  }

  /** Error rendering: any failure as the platform renders it (500s are logged, never leaked). */
  function renderError(x: Exchange, e: unknown): void {
    if (e instanceof ClientClosedRequest) {
      x.status = CLIENT_CLOSED_REQUEST;
      x.res.destroy();
      return;
    }
    const r = errorToResponse(e);
    if (r.internal) {
      const err = e instanceof Error ? e : new Error(String(e));
      safeLog({
        time: new Date().toISOString(),
        severity: 'ERROR',
        request_id: x.requestId,
        method: x.method,
        path: x.logPath,
        'exception.class': err.name,
        'exception.message': err.message,
        'exception.backtrace': err.stack?.split('\n').slice(1, 15).map((s) => s.trim()),
      });
    }
    if (x.res.headersSent) {
      x.res.destroy();
      return;
    }
    if ((r.status === 413 || r.status === 400) && !answeredForGood.has(x.req.socket)) {
      x.exchangeHeaders.push('Connection', 'close');
      answeredForGood.add(x.req.socket);
    }
    const body = x.mount?.options.renderError ? x.mount.options.renderError(r.status, r.body) : r.body;
    x.status = writeReply(x.res, withStatus(r.status, body, { headers: r.headers, etag: false }), {
      method: x.method,
      requestHeaders: x.req.headers,
      exchangeHeaders: replyHeaders(x),
      defaultContentType: x.contentType,
    });
  }

  /**
   * A lingering close, as nginx and Apache do. A reply written while the client is still sending its body,
   * on a connection that closes after it: closing at once makes the kernel answer the client's next bytes
   * with a reset, which destroys the reply before a client that reads after sending has read it. So node's
   * close (`destroySoon`, called once the reply is flushed) becomes a half-close when the socket's latest
   * request is incomplete: the reply is followed by a FIN, and whatever the client still sends is read and
   * discarded until it closes, falls silent for `LINGER_IDLE_MS`, or `LINGER_MAX_MS` pass. Installed when a
   * request with a body arrives, before any reply can be written (a reply may finish before the stage that
   * wrote it returns).
   */
  function lingerOnClose(req: IncomingMessage): void {
    const socket = req.socket;
    const installed = lingering.has(socket);
    lingering.set(socket, req);
    if (installed) return;
    const closeNow = socket.destroySoon.bind(socket);
    socket.destroySoon = () => {
      const current = lingering.get(socket);
      if (!current || current.complete) return closeNow();
      if (socket.writable) socket.end();
      const stop = (): void => {
        clearTimeout(idle);
        clearTimeout(overall);
        socket.destroy();
      };
      const idle = setTimeout(stop, LINGER_IDLE_MS);
      const overall = setTimeout(stop, LINGER_MAX_MS);
      current.on('data', () => idle.refresh());
      socket.once('end', stop);
      socket.once('close', stop);
    };
  }

  /** Access log and bookkeeping: an unread body is discarded (lingering if need be); one line per request. */
  function closeExchange(x: Exchange): void {
    if (!x.bodyConsumed && !x.req.complete) x.req.resume();
    const elapsed = performance.now() - x.started;
    requestMetrics.record(x.method, x.routeName, x.status, elapsed / 1000);
    // Off: not even built (a date and an object per request, a share of a cached read's cost).
    if (accessLog) safeLog({
      time: new Date().toISOString(),
      severity: 'INFO',
      method: x.method,
      path: x.logPath,
      status: x.status,
      duration_ms: Math.round(elapsed * 1000) / 1000,
      request_id: x.requestId,
      user_id: x.userId,
      ...(x.sudoFromId !== null ? { sudo_from_id: x.sudoFromId } : {}),
      ...(x.routeName ? { route: x.routeName } : {}),
    });
    inFlight--;
    if (inFlight === 0 && drained) drained();
  }

  /** A streaming route: it reads the body and writes the reply itself; the exchange is logged as any other. */
  async function answerRaw(x: Exchange, raw: RawRoute): Promise<void> {
    x.routeName = raw.name;
    x.bodyConsumed = true;
    try {
      const served = await raw.handle(x.req, x.res, requestInfoOf(x));
      x.userId = served.userId;
      x.status = x.res.statusCode;
    } catch (e) {
      renderError(x, e);
    } finally {
      closeExchange(x);
    }
  }

  /** The asynchronous part of a request: operator endpoints, and everything a cached reply did not answer. */
  async function answerLater(x: Exchange): Promise<void> {
    try {
      if (isOperatorEndpoint(x)) await answerOperator(x);
      else {
        // Only a request that named a position this node has not reached waits (not a promise for every request).
        if (x.minPosition !== null) {
          await awaitPosition(x);
          if (answerFromExchangeCache(x)) return;
        }
        await answerRoute(x);
      }
    } catch (e) {
      renderError(x, e);
    } finally {
      closeExchange(x);
    }
  }

  /**
   * The request handler. The early part runs synchronously, so that a cached read is answered without a
   * promise of its own; anything else continues in `answerLater`.
   */
  function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight++;
    const x = openExchange(req, res);
    try {
      checkTarget(x);
      if (refusedReadOnly(x)) {
        closeExchange(x);
        return DONE;
      }
      const raw = rawRoutes.length === 0 ? undefined : rawRoutes.find((candidate) => candidate.matches(x.path));
      if (raw) return answerRaw(x, raw);
      if (!isOperatorEndpoint(x)) checkMinPosition(x);
      if (isOperatorEndpoint(x) || x.minPosition !== null || !answerFromExchangeCache(x)) return answerLater(x);
    } catch (e) {
      renderError(x, e);
    }
    closeExchange(x);
    return DONE;
  }

  const checkEvery = Math.min(1_000, ...[timeouts.headersMs, timeouts.requestMs].filter((ms) => ms > 0).map((ms) => Math.max(10, Math.floor(ms / 4))));
  const server = http.createServer(
    {
      maxHeaderSize: limits.maxUrlBytes + limits.maxHeaderBytes,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: checkEvery,
    },
    (req, res) => {
      void handle(req, res);
    },
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // Without a 'timeout' listener, node destroys a socket that has been silent this long.
  server.timeout = timeouts.idleMs;
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    if (answeredForGood.has(socket)) {
      // end(), not destroy(): the reply already written may still be in the socket's buffer.
      if (socket.writable) socket.end();
      else socket.destroy();
      return;
    }
    // Bytes that fail to parse while this socket still carries a reply (a request being handled, or a reply
    // being flushed) are most often an unframed body sent after a request that has none (a DELETE with a
    // body and no Content-Length). A 400 written now would reach the client as the reply to its *next*
    // request. Like node's own handler, answer only when no reply is attached; otherwise hang up.
    const owed = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || owed) {
      socket.destroy();
      return;
    }
    const statusLine =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : err.code !== 'HPE_HEADER_OVERFLOW'
          ? '400 Bad Request'
          : overflowIsTarget(err.rawPacket, limits.maxUrlBytes)
            ? '414 Request-URI Too Large'
            : '431 Request Header Fields Too Large';
    const body = JSON.stringify({ error: statusLine });
    // The request could not be parsed, but a HEAD must still get no body: its client would take one for
    // garbage after the reply.
    const head = err.rawPacket instanceof Buffer && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${statusLine}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nX-Frame-Options: SAMEORIGIN\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  });

  return {
    server,
    router,
    handle,
    listen(port: number, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const onError = (e: Error): void => reject(e);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const addr = server.address() as AddressInfo;
          const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          resolve({ port: addr.port, host: addr.address, url: `http://${h}:${addr.port}` });
        });
      });
    },
    close() {
      closing = true;
      for (const raw of rawRoutes) raw.close?.();
      const closed = new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        const finish = (): void => {
          server.closeIdleConnections();
        };
        if (inFlight === 0) finish();
        else
          drained = () => {
            // Let the last response flush before dropping idle keep-alive sockets.
            setImmediate(finish);
          };
      });
      // Once every request is answered: none waits for the worker any more.
      return closed.finally(() => bodyWorker.close());
    },
  };
}
