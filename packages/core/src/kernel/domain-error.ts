/**
 * Every way a command or query can fail, as data. The HTTP adapter maps these to status and body in
 * exactly one place; the core never speaks HTTP.
 */

export type DomainError =
  /** A resource is missing. `resource` picks the platform's text, e.g. "Group" → "404 Group Not Found". */
  | { readonly _tag: 'NotFound'; readonly resource?: string; readonly message?: string }
  /** The actor may not do this. `reason` becomes "403 Forbidden - <reason>"; `message` is rendered as it is. */
  | { readonly _tag: 'Forbidden'; readonly reason?: string; readonly message?: string }
  | { readonly _tag: 'Unauthorized' }
  /** A conflicting resource already exists ("Member already exists"). */
  | { readonly _tag: 'Conflict'; readonly message: string }
  /** Model validation: field → messages, rendered as `{"message":{"field":["…"]}}`. */
  | { readonly _tag: 'Validation'; readonly errors: Readonly<Record<string, readonly string[]>> }
  /** A request the platform answers with "400 Bad request[ - reason]". */
  | { readonly _tag: 'BadRequest'; readonly reason?: string; readonly message?: string }
  | { readonly _tag: 'PreconditionFailed'; readonly message?: string }
  | { readonly _tag: 'MethodNotAllowed'; readonly message?: string }
  | { readonly _tag: 'Unprocessable'; readonly message?: string };

export const notFound = (resource?: string, message?: string): DomainError => ({ _tag: 'NotFound', resource, message });
export const forbidden = (reason?: string): DomainError => ({ _tag: 'Forbidden', reason });
/** A 403 whose text is the service's own message (`render_api_error!(message, 403)`). */
export const forbiddenMessage = (message: string): DomainError => ({ _tag: 'Forbidden', message });
export const unauthorized: DomainError = { _tag: 'Unauthorized' };
export const conflict = (message: string): DomainError => ({ _tag: 'Conflict', message });
export const validation = (errors: Record<string, readonly string[]>): DomainError => ({ _tag: 'Validation', errors });
export const badRequest = (reason?: string): DomainError => ({ _tag: 'BadRequest', reason });
export const preconditionFailed = (message?: string): DomainError => ({ _tag: 'PreconditionFailed', message });
export const methodNotAllowed = (message?: string): DomainError => ({ _tag: 'MethodNotAllowed', message });
export const unprocessable = (message?: string): DomainError => ({ _tag: 'Unprocessable', message });
