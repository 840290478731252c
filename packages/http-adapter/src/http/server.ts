/**
 * The server shell: one request pipeline for every route, over `node:http`.
 *
 * Pipeline: request id → URL length (414) → health endpoints → routing (404 / 405 / 410 / OPTIONS) → query and body
 * parsing (400 / 413) → authentication and sudo (401 / 403 / 404) → route `before` hook → params validation (400)
 * → handler → reply (JSON, ETag/304). Any failure is rendered by `errorToResponse`; unexpected exceptions are
 * logged and answered 500 `{"message":"500 Internal Server Error"}`. One JSON access-log line per request.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { hash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { authenticateRequest, type AuthBackend, type TokenKind } from './auth.js';
import {
  API_V3_GONE_BODY,
  ApiError,
  errorToResponse,
  isDomainError,
  METHOD_NOT_ALLOWED_BODY,
  ROUTE_NOT_FOUND_BODY,
} from './errors.js';
import { mergeParams, parseBody, parseQueryString, readBody } from './params.js';
import { isReply, json, JSON_CONTENT_TYPE, renderReply, sendRendered, writeReply, type RenderedReply, type Reply, withStatus } from './response.js';
import { Router, type HandlerContext, type Mount, type RequestInfo } from './router.js';
import { ResponseCache, type ResponseCacheOptions } from './cache.js';
import { decodeParams, type RawParams } from './validation.js';

export interface Limits {
  /** Maximum request-target length in bytes (path + query); beyond → 414. Default 8192. */
  readonly maxUrlBytes: number;
  /** Maximum body size in bytes; beyond → 413. Default 10 MiB. */
  readonly maxBodyBytes: number;
  /** Node's header-block limit (request line + headers); beyond → 431. Default 64 KiB. */
  readonly maxHeaderBytes: number;
  /** Grape's 415 for unsupported request media types instead of ignoring the body. Default false. */
  readonly rejectUnsupportedContentType: boolean;
}

export const DEFAULT_LIMITS: Limits = {
  maxUrlBytes: 8 * 1024,
  maxBodyBytes: 10 * 1024 * 1024,
  maxHeaderBytes: 64 * 1024,
  rejectUnsupportedContentType: false,
};

export type LogEntry = Readonly<Record<string, unknown>>;
export type LogSink = (entry: LogEntry) => void;

export interface ApiServerOptions {
  readonly routes: readonly Mount[];
  readonly authBackend: AuthBackend;
  /** e.g. 'https://gitlab.example.com' — used for pagination links; else `http://<Host header>`. */
  readonly externalUrl?: string;
  readonly limits?: Partial<Limits>;
  /** Access-log and error-log sink (one object per line). Default: JSON lines on stdout. */
  readonly log?: LogSink;
  /** `/-/readiness` check: false or a thrown error → 503. */
  readonly readiness?: () => boolean | Promise<boolean>;
  /** Caches rendered GET responses until `version()` changes (see cache.ts). */
  readonly responseCache?: ResponseCacheOptions;
}

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

function splitTarget(target: string): { path: string; query: string } {
  let t = target;
  const hash = t.indexOf('#');
  if (hash !== -1) t = t.slice(0, hash);
  if (!t.startsWith('/')) {
    // absolute-form (proxies) or garbage
    try {
      const u = new URL(t);
      return { path: u.pathname, query: u.search.replace(/^\?/, '') };
    } catch {
      throw ApiError.error(400, '400 Bad Request');
    }
  }
  const q = t.indexOf('?');
  return q === -1 ? { path: t, query: '' } : { path: t.slice(0, q), query: t.slice(q + 1) };
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

export function createApiServer(options: ApiServerOptions): ApiServer {
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const router = new Router(options.routes);
  const log = options.log ?? defaultSink;
  const externalUrl = options.externalUrl?.replace(/\/+$/, '');
  const cache = options.responseCache ? new ResponseCache(options.responseCache) : null;
  let closing = false;
  // Sockets that were sent a final `Connection: close` reply: whatever the client still sends on them
  // (say the rest of a body) must not draw a second reply from the clientError handler below.
  const answeredForGood = new WeakSet<Socket>();
  let inFlight = 0;
  let drained: (() => void) | null = null;

  const safeLog = (entry: LogEntry): void => {
    try {
      log(entry);
    } catch {
      /* a broken sink must not break requests */
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight++;
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID_RE.test(incomingId) ? incomingId : randomUUID();
    const exchangeHeaders = ['X-Request-Id', requestId];
    if (closing) {
      exchangeHeaders.push('Connection', 'close');
      answeredForGood.add(req.socket);
    }
    let logPath = '';
    let userId: number | null = null;
    let sudoFromId: number | null = null;
    let routeName: string | undefined;
    let status = 500;
    let contentType = JSON_CONTENT_TYPE;
    let currentMount: Mount | null = null;
    let bodyConsumed = false;
    try {
      const target = req.url ?? '/';
      if (Buffer.byteLength(target) > limits.maxUrlBytes) {
        logPath = target.split('?')[0]!.slice(0, 256);
        throw ApiError.error(414, '414 Request-URI Too Large');
      }
      const { path, query } = splitTarget(target);
      logPath = path;

      if (HEALTH_PATHS.has(path) && (method === 'GET' || method === 'HEAD')) {
        let ready = true;
        if (path === '/-/readiness' && options.readiness) {
          try {
            ready = await options.readiness();
          } catch {
            ready = false;
          }
        }
        status = writeReply(res, withStatus(ready ? 200 : 503, { status: ready ? 'ok' : 'failed' }, { etag: false }), {
          method,
          requestHeaders: req.headers,
          exchangeHeaders,
          defaultContentType: JSON_CONTENT_TYPE,
        });
        return;
      }

      // A repeated read is answered before routing, parameters and authentication: the same target and
      // credentials at the same version (log position and day) get the same reply.
      const exchangeKey = cache && (method === 'GET' || method === 'HEAD') && !hasBody(req) ? exchangeKeyOf(method, target, req.headers) : null;
      if (exchangeKey !== null) {
        const hit = cache!.get(exchangeKey) as CachedExchange | undefined;
        if (hit) {
          userId = hit.userId;
          sudoFromId = hit.sudoFromId;
          routeName = hit.routeName;
          status = sendRendered(res, hit, { method, requestHeaders: req.headers, exchangeHeaders });
          return;
        }
      }

      const match = router.match(method, path);
      const mountType = (m: Mount | null): string => m?.options.contentType ?? JSON_CONTENT_TYPE;
      if (match.kind !== 'gone') currentMount = match.kind === 'match' ? match.route.mount : match.mount;
      switch (match.kind) {
        case 'gone':
          throw new ApiError(410, API_V3_GONE_BODY);
        case 'not_found':
          contentType = mountType(match.mount);
          throw new ApiError(404, ROUTE_NOT_FOUND_BODY);
        case 'method_not_allowed':
          contentType = mountType(match.mount);
          throw new ApiError(405, METHOD_NOT_ALLOWED_BODY, { Allow: match.allow.join(', ') });
        case 'options':
          contentType = mountType(match.mount);
          status = writeReply(res, withStatus(204, undefined, { headers: { Allow: match.allow.join(', ') } }), {
            method,
            requestHeaders: req.headers,
            exchangeHeaders,
            defaultContentType: contentType,
          });
          return;
        case 'match':
          break;
      }
      const { route, params: routeParams } = match;
      contentType = mountType(route.mount);
      routeName = route.def.name ?? `${route.def.method} ${route.pattern}`;

      const queryParams = parseQueryString(query);
      let rawBody: Buffer = Buffer.alloc(0);
      if (hasBody(req)) {
        rawBody = await readBody(req, limits);
      }
      bodyConsumed = true;
      const bodyParams = parseBody(rawBody, {
        method,
        contentType: req.headers['content-type'],
        rejectUnsupportedContentType: limits.rejectUnsupportedContentType,
      });
      const raw: RawParams = mergeParams(queryParams, bodyParams, routeParams);

      const authMode = route.def.auth ?? route.mount.options.auth ?? 'required';
      const auth = await authenticateRequest(options.authBackend, {
        method,
        headers: req.headers,
        params: raw,
        requestId,
        route: { auth: authMode, scopes: route.def.scopes, admin: route.def.admin },
      });
      userId = auth.principal?.userId ?? null;
      sudoFromId = auth.actor.sudoFromId ?? null;

      // Only routes whose caller the adapter authenticated are cached: the key names that caller.
      const cacheKey =
        cache && (method === 'GET' || method === 'HEAD') && authMode !== 'none' && route.def.cache !== false
          ? `${path}?${query}|${req.headers.host ?? ''}|${auth.principal ? `${auth.principal.userId}:${auth.principal.realUserId}:${auth.principal.isAdmin}` : '-'}`
          : null;
      const cached = cacheKey === null ? undefined : cache!.get(cacheKey);
      const cacheVersion = cacheKey === null ? '' : cache!.current();
      const remember = (rendered: RenderedReply, version: string): void => {
        if (exchangeKey === null || (auth.principal && !DAY_BOUND_CREDENTIALS.has(auth.principal.tokenKind))) return;
        const exchange: CachedExchange = { ...rendered, userId, sudoFromId, routeName };
        cache!.set(exchangeKey, exchange, version);
      };
      if (cached) {
        remember(cached, cacheVersion);
        status = sendRendered(res, cached, { method, requestHeaders: req.headers, exchangeHeaders });
        return;
      }

      const hostHeader = req.headers.host;
      const request: RequestInfo = {
        method,
        path,
        query,
        headers: req.headers,
        requestId,
        baseUrl: externalUrl ?? `http://${hostHeader && /^[A-Za-z0-9.:[\]-]+$/.test(hostHeader) ? hostHeader : 'localhost'}`,
      };
      const ctx: HandlerContext<unknown> = {
        params: {},
        raw,
        routeParams,
        query: queryParams,
        body: bodyParams,
        rawBody,
        actor: auth.actor,
        principal: auth.principal,
        token: auth.token,
        request,
        route,
      };

      if (route.def.before) {
        const r = await route.def.before(ctx);
        if (r !== undefined && r !== null) toReply(r);
      }

      let params: unknown = {};
      if (route.def.params) {
        const decoded = decodeParams(route.def.params, raw);
        if (!decoded.ok) throw ApiError.error(400, decoded.message);
        params = decoded.value;
      }
      const result = await route.def.handler({ ...ctx, params });
      const rendered = renderReply(toReply(result), { method, defaultContentType: contentType });
      if (cacheKey !== null && rendered.status === 200) {
        cache!.set(cacheKey, rendered, cacheVersion);
        remember(rendered, cacheVersion);
      }
      status = sendRendered(res, rendered, { method, requestHeaders: req.headers, exchangeHeaders });
    } catch (e) {
      const r = errorToResponse(e);
      if (r.internal) {
        const err = e instanceof Error ? e : new Error(String(e));
        safeLog({
          time: new Date().toISOString(),
          severity: 'ERROR',
          request_id: requestId,
          method,
          path: logPath,
          'exception.class': err.name,
          'exception.message': err.message,
          'exception.backtrace': err.stack?.split('\n').slice(1, 15).map((s) => s.trim()),
        });
      }
      if (res.headersSent) {
        res.destroy();
      } else {
        const headers: Record<string, string> = { ...r.headers };
        if ((r.status === 413 || r.status === 400) && !answeredForGood.has(req.socket)) {
          exchangeHeaders.push('Connection', 'close');
          answeredForGood.add(req.socket);
        }
        const body = currentMount?.options.renderError ? currentMount.options.renderError(r.status, r.body) : r.body;
        status = writeReply(res, withStatus(r.status, body, { headers, etag: false }), {
          method,
          requestHeaders: req.headers,
          exchangeHeaders,
          defaultContentType: contentType,
        });
      }
    } finally {
      if (!bodyConsumed && !req.complete) req.resume();
      safeLog({
        time: new Date().toISOString(),
        severity: 'INFO',
        method,
        path: logPath,
        status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        request_id: requestId,
        user_id: userId,
        ...(sudoFromId !== null ? { sudo_from_id: sudoFromId } : {}),
        ...(routeName ? { route: routeName } : {}),
      });
      inFlight--;
      if (inFlight === 0 && drained) drained();
    }
  }

  const server = http.createServer({ maxHeaderSize: limits.maxHeaderBytes }, (req, res) => {
    void handle(req, res);
  });
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
    const overflow = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(overflow ? { error: '431 Request Header Fields Too Large' } : { error: '400 Bad Request' });
    const statusLine = overflow ? '431 Request Header Fields Too Large' : '400 Bad Request';
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
      return new Promise<void>((resolve, reject) => {
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
    },
  };
}
