/**
 * The one place where failures become HTTP: core `DomainError`s (reference §1.1/§1.2), adapter-level `ApiError`s
 * with an exact body, and unexpected exceptions (500, logged, never leaked).
 */
import type { DomainError } from '@forgefold/core';

/**
 * An adapter-level failure carrying its status and its exact JSON body. Throw it from a handler, a hook or the
 * infrastructure; the server renders it verbatim.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(typeof body === 'object' && body !== null ? JSON.stringify(body) : String(body));
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
  /** Grape style: `{"error": text}` (validation, routing, pagination errors). */
  static error(status: number, text: string, headers: Record<string, string> = {}): ApiError {
    return new ApiError(status, { error: text }, headers);
  }
  /** GitLab helper style: `{"message": msg}` (`render_api_error!`). */
  static message(status: number, message: unknown, headers: Record<string, string> = {}): ApiError {
    return new ApiError(status, { message }, headers);
  }
  /** A core DomainError, rendered through `domainErrorResponse`. */
  static domain(err: DomainError): ApiError {
    const r = domainErrorResponse(err);
    return new ApiError(r.status, r.body);
  }
}

export interface ErrorResponse {
  readonly status: number;
  readonly body: unknown;
}

const DOMAIN_TAGS = new Set([
  'NotFound',
  'Forbidden',
  'Unauthorized',
  'Conflict',
  'Validation',
  'BadRequest',
  'PreconditionFailed',
  'MethodNotAllowed',
  'Unprocessable',
]);

export function isDomainError(u: unknown): u is DomainError {
  return typeof u === 'object' && u !== null && DOMAIN_TAGS.has((u as { _tag?: unknown })._tag as string);
}

/**
 * Maps a core DomainError to status and body, per reference §1.1/§1.2:
 * - NotFound: `message` verbatim (e.g. "404 Not found" for RecordNotFound), else "404 <Resource> Not Found",
 *   else "404 Not Found";
 * - Forbidden: "403 Forbidden" / "403 Forbidden - <reason>";
 * - Unauthorized: "401 Unauthorized";
 * - Conflict: message (default "409 Conflict");
 * - Validation: `{"message": {field: [...]}}`, 400;
 * - BadRequest: `message` verbatim, else "400 Bad request" / "400 Bad request - <reason>";
 * - PreconditionFailed: message, default "412 Precondition Failed";
 * - MethodNotAllowed: message, default "405 Method Not Allowed";
 * - Unprocessable: message, default "422 Unprocessable Entity".
 */
export function domainErrorResponse(err: DomainError): ErrorResponse {
  switch (err._tag) {
    case 'NotFound':
      return {
        status: 404,
        body: { message: err.message ?? (err.resource ? `404 ${err.resource} Not Found` : '404 Not Found') },
      };
    case 'Forbidden':
      return { status: 403, body: { message: err.reason ? `403 Forbidden - ${err.reason}` : '403 Forbidden' } };
    case 'Unauthorized':
      return { status: 401, body: { message: '401 Unauthorized' } };
    case 'Conflict':
      return { status: 409, body: { message: err.message || '409 Conflict' } };
    case 'Validation':
      return { status: 400, body: { message: err.errors } };
    case 'BadRequest':
      return {
        status: 400,
        body: { message: err.message ?? (err.reason ? `400 Bad request - ${err.reason}` : '400 Bad request') },
      };
    case 'PreconditionFailed':
      return { status: 412, body: { message: err.message ?? '412 Precondition Failed' } };
    case 'MethodNotAllowed':
      return { status: 405, body: { message: err.message ?? '405 Method Not Allowed' } };
    case 'Unprocessable':
      return { status: 422, body: { message: err.message ?? '422 Unprocessable Entity' } };
  }
}

/** 500 body; the exception itself goes to the log only. */
export const INTERNAL_ERROR_BODY = { message: '500 Internal Server Error' } as const;

/** Catch-all texts (Grape `{"error": …}` bodies). */
export const ROUTE_NOT_FOUND_BODY = { error: '404 Not Found' } as const;
export const METHOD_NOT_ALLOWED_BODY = { error: '405 Not Allowed' } as const;
export const API_V3_GONE_BODY = { error: 'API V3 is no longer supported. Use API V4 instead.' } as const;

/** The platform's `service_unavailable!` (`render_api_error!('503 Service Unavailable', 503)`). */
export const SERVICE_UNAVAILABLE_BODY = { message: '503 Service Unavailable' } as const;

/** A 503 the client should retry after a second: the store is unreachable, or a node is behind. */
export const serviceUnavailable = (): ApiError => ApiError.message(503, SERVICE_UNAVAILABLE_BODY.message, { 'Retry-After': '1' });

/** The store could not be reached (core's StoreUnavailable, told by its tag: adapters may bundle their own copy). */
const isStoreUnavailable = (e: unknown): boolean => e instanceof Error && (e as { _tag?: unknown })._tag === 'StoreUnavailable';

/** Normalises anything thrown by a handler into an ErrorResponse (+headers); `internal` marks a 500 to log. */
export function errorToResponse(e: unknown): ErrorResponse & { headers: Record<string, string>; internal: boolean } {
  if (e instanceof ApiError) return { status: e.status, body: e.body, headers: { ...e.headers }, internal: false };
  if (isDomainError(e)) return { ...domainErrorResponse(e), headers: {}, internal: false };
  if (isStoreUnavailable(e)) return { status: 503, body: SERVICE_UNAVAILABLE_BODY, headers: { 'Retry-After': '1' }, internal: false };
  return { status: 500, body: INTERNAL_ERROR_BODY, headers: {}, internal: true };
}
