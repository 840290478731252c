/**
 * Offset and keyset pagination with GitLab's headers (reference §1.7, §1.8). Sources are random-access so a page
 * costs time proportional to the page: projections are in memory and already sorted.
 */
import { ApiError } from './errors.js';
import { encodeUriComponentSafely } from './params.js';
import { json, type Reply } from './response.js';
import type { HandlerContext } from './router.js';
import { decodeParams, paginationParams, type RawParams } from './validation.js';

/** A sorted collection that can count itself and cut a slice. */
export interface OffsetSource<T> {
  count(): number;
  slice(offset: number, limit: number): readonly T[];
}

/** A collection ordered by an integer key, readable from a cursor. */
export interface KeysetSource<T> {
  /** Up to `limit` items with key > `after` (asc) or key < `before` (desc); no cursor = from the start. */
  page(cursor: { readonly after?: number; readonly before?: number }, direction: 'asc' | 'desc', limit: number): readonly T[];
  keyOf(item: T): number;
}

export function arraySource<T>(items: readonly T[]): OffsetSource<T> {
  return { count: () => items.length, slice: (offset, limit) => items.slice(offset, offset + limit) };
}

/** Keyset source over an array sorted ascending by `keyOf` (binary search per page). */
export function sortedArrayKeysetSource<T>(items: readonly T[], keyOf: (t: T) => number): KeysetSource<T> {
  const lowerBound = (k: number): number => {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keyOf(items[mid]!) < k) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    keyOf,
    page(cursor, direction, limit) {
      if (direction === 'asc') {
        const start = cursor.after === undefined ? 0 : lowerBound(cursor.after + 1);
        return items.slice(start, start + limit);
      }
      const end = cursor.before === undefined ? items.length : lowerBound(cursor.before);
      const out: T[] = [];
      for (let i = end - 1; i >= 0 && out.length < limit; i--) out.push(items[i]!);
      return out;
    },
  };
}

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;
/** Above this count X-Total, X-Total-Pages and rel="last" are omitted (`api_kaminari_count_with_limit`). */
export const MAX_COUNT = 10_000;

export const KEYSET_NOT_AVAILABLE = 'Keyset pagination is not yet available for this type of request';

export interface KeysetOptions<T> {
  readonly source: KeysetSource<T>;
  /** Whether this `order_by`/`sort` combination supports keyset (projects: order_by=id only). */
  readonly supports: (orderBy: string | undefined, sort: 'asc' | 'desc') => boolean;
}

export interface PaginateOptions<T> {
  /** Serialises each item of the page. */
  readonly map?: (item: T) => unknown;
  /** Enables `pagination=keyset` for this list; without it keyset requests get 405. */
  readonly keyset?: KeysetOptions<T>;
  /** Offset cap (reference item 48): `page * per_page > limit` → 405 mentioning `type` (e.g. 'Project'). */
  readonly maxOffset?: { readonly limit: number; readonly type: string };
  readonly headers?: Record<string, string>;
  /** `paginate(…, exclude_total_headers: true)`: no `X-Total` nor `X-Total-Pages` (the Link keeps `rel="last"`). */
  readonly excludeTotalHeaders?: boolean;
}

/** The params pagination reads of a request's (besides echoing them all in its links). */
export const PAGINATION_PARAMS: readonly string[] = [...paginationParams.names, 'pagination', 'order_by', 'sort', 'id_after', 'id_before'];

/** Rails `to_query`: CGI-escaped `k=v` pairs (nested `a[b]`, arrays `a[]`), sorted as strings, joined by '&'. */
export function toQuery(value: unknown, namespace?: string): string {
  if (Array.isArray(value)) {
    const prefix = `${namespace ?? ''}[]`;
    if (value.length === 0) return `${cgiEscape(prefix)}=`;
    return value.map((v) => toQuery(v, prefix)).join('&');
  }
  if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)) {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => toQuery(v, namespace ? `${namespace}[${k}]` : k));
    if (parts.length === 0 && namespace) return `${cgiEscape(namespace)}=`;
    return parts.sort().join('&');
  }
  return `${cgiEscape(namespace ?? '')}=${cgiEscape(value === null || value === undefined ? '' : typeof value === 'string' ? value : Buffer.isBuffer(value) ? '' : globalThis.String(value))}`;
}

/**
 * Ruby `CGI.escape`: unreserved `a-zA-Z0-9_.-~` kept, space → '+', everything else %XX (UTF-8). An unpaired
 * surrogate (which has no UTF-8 form, and made `encodeURIComponent` throw) is escaped as U+FFFD.
 */
export function cgiEscape(s: string): string {
  return encodeUriComponentSafely(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Parameters echoed in links: raw params, overridden by coerced declared ones (Grape `params`). */
function linkParams(ctx: HandlerContext<unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...ctx.raw };
  const p = ctx.params;
  if (typeof p === 'object' && p !== null) {
    for (const [k, v] of Object.entries(p)) if (v !== undefined) out[k] = v;
  }
  // Credentials never go into links.
  delete out['private_token'];
  delete out['access_token'];
  return out;
}

/**
 * `page => ${url}?${toQuery({ ...params, page })}`, with the query built once: the links of a page differ only in
 * `page=N`, and where that pair sorts among the others does not depend on N (every other pair differs from
 * `page=` within its first five characters), so the pairs before and after it are the same for every N.
 */
export function pageLinks(url: string, params: Record<string, unknown>): (page: number) => string {
  const pairs = toQuery({ ...params, page: 1 }).split('&');
  const at = pairs.indexOf('page=1');
  // Another pair named `page` (a nested key under an empty name, `[page]=…`, escapes to it) sorts against ours by
  // the digits: then every link is built in full.
  if (at === -1 || pairs.some((pair, i) => i !== at && pair.startsWith('page='))) return (page) => `${url}?${toQuery({ ...params, page })}`;
  const head = `${url}?${pairs.slice(0, at).map((pair) => `${pair}&`).join('')}page=`;
  const tail = pairs.slice(at + 1).map((pair) => `&${pair}`).join('');
  return (page) => `${head}${page}${tail}`;
}

function pageHref(ctx: HandlerContext<unknown>, params: Record<string, unknown>): string {
  return `${ctx.request.baseUrl}${ctx.request.path}?${toQuery(params)}`;
}

interface PageParams {
  page: number;
  perPageRequested: unknown;
  limit: number;
}

function readPageParams(ctx: HandlerContext<unknown>): PageParams {
  const p = (typeof ctx.params === 'object' && ctx.params !== null ? ctx.params : {}) as Record<string, unknown>;
  let page = p['page'];
  let perPage = p['per_page'];
  if (!('page' in p) || !('per_page' in p)) {
    const d = decodeParams(paginationParams, ctx.raw);
    if (!d.ok) throw ApiError.error(400, d.message);
    page = 'page' in p ? page : d.value.page;
    perPage = 'per_page' in p ? perPage : d.value.per_page;
  }
  // Kaminari: page ≤ 0 or null → 1; per_page negative or null → default; capped at max_per_page.
  const pageN = typeof page === 'number' && page > 0 ? page : 1;
  const perN = typeof perPage === 'number' && perPage > 0 ? Math.min(perPage, MAX_PER_PAGE) : DEFAULT_PER_PAGE;
  return { page: pageN, perPageRequested: perPage ?? DEFAULT_PER_PAGE, limit: perN };
}

/** The offset and size of the page a request asks for (Kaminari's rules), for lists read page by page. */
export function pageWindow(ctx: HandlerContext<unknown>): { readonly offset: number; readonly limit: number } {
  const { page, limit } = readPageParams(ctx);
  return { offset: (page - 1) * limit, limit };
}

/**
 * Offset pagination of a list that reads one page at a time (a git listing): `load` gets the window and answers
 * the page's items and the total.
 */
export async function paginateLoaded<T>(
  ctx: HandlerContext<unknown>,
  load: (offset: number, limit: number) => Promise<{ readonly items: readonly T[]; readonly total: number }>,
  map: (items: readonly T[]) => unknown[] | Promise<unknown[]>,
  opts: Pick<PaginateOptions<T>, 'excludeTotalHeaders'> = {},
): Promise<Reply> {
  const { offset, limit } = pageWindow(ctx);
  const page = await load(offset, limit);
  const rendered = await map(page.items);
  return paginate(ctx, { count: () => page.total, slice: () => rendered }, opts);
}

/** Offset pagination headers and page (exposed for tests and custom lists). */
export function offsetPage<T>(
  source: OffsetSource<T>,
  page: number,
  limit: number,
  href: (page: number) => string,
  excludeTotalHeaders = false,
): { items: readonly T[]; headers: Record<string, string> } {
  const total = source.count();
  // A list that does not count (an Array with a made-up total, as the commits list pages) never turns into the
  // uncounted Relation form past MAX_COUNT.
  const withCount = excludeTotalHeaders || total <= MAX_COUNT;
  const kaminariPages = Math.ceil(total / limit);
  const offset = (page - 1) * limit;
  const items = offset < total ? source.slice(offset, limit) : [];
  let prev: number | null;
  let next: number | null;
  if (withCount) {
    const outOfRange = page > kaminariPages;
    prev = page > 1 && !outOfRange ? page - 1 : null;
    next = page < kaminariPages && !outOfRange ? page + 1 : null;
  } else {
    const outOfRange = items.length === 0;
    prev = page > 1 && !outOfRange ? page - 1 : null;
    next = offset + limit < total ? page + 1 : null;
  }
  const totalPages = Math.max(kaminariPages, 1);
  const links: string[] = [];
  if (prev !== null) links.push(`<${href(prev)}>; rel="prev"`);
  if (next !== null) links.push(`<${href(next)}>; rel="next"`);
  links.push(`<${href(1)}>; rel="first"`);
  if (withCount) links.push(`<${href(totalPages)}>; rel="last"`);
  const headers: Record<string, string> = {
    'X-Per-Page': String(limit),
    'X-Page': String(page),
    'X-Next-Page': next === null ? '' : String(next),
    'X-Prev-Page': prev === null ? '' : String(prev),
    Link: links.join(', '),
  };
  if (withCount && !excludeTotalHeaders) {
    headers['X-Total'] = String(total);
    headers['X-Total-Pages'] = String(totalPages);
  }
  return { items, headers };
}

/**
 * Paginates a list for a handler and returns the 200 Reply (JSON array + headers).
 * `pagination=keyset` → keyset (405 when `opts.keyset` is absent or does not support the order).
 * Invalid `page`/`per_page` → 400 `{"error":"page is invalid"}` (when the route schema does not already declare them).
 */
export function paginate<T>(ctx: HandlerContext<unknown>, source: OffsetSource<T>, opts: PaginateOptions<T> = {}): Reply {
  const map = opts.map ?? ((x: T) => x);
  if (ctx.raw['pagination'] === 'keyset') return keysetPaginate(ctx, opts, map);
  const { page, perPageRequested, limit } = readPageParams(ctx);
  if (opts.maxOffset && page * limit > opts.maxOffset.limit) {
    throw ApiError.error(
      405,
      `Offset pagination has a maximum allowed offset of ${opts.maxOffset.limit} for requests that return objects of type ${opts.maxOffset.type}. Remaining records can be retrieved using keyset pagination.`,
    );
  }
  const href = pageLinks(`${ctx.request.baseUrl}${ctx.request.path}`, { ...linkParams(ctx), per_page: perPageRequested });
  const { items, headers } = offsetPage(source, page, limit, href, opts.excludeTotalHeaders);
  return json(items.map(map), { status: 200, headers: { ...opts.headers, ...headers } });
}

function keysetPaginate<T>(ctx: HandlerContext<unknown>, opts: PaginateOptions<T>, map: (x: T) => unknown): Reply {
  const raw: RawParams = ctx.raw;
  const p = (typeof ctx.params === 'object' && ctx.params !== null ? ctx.params : {}) as Record<string, unknown>;
  const orderBy = typeof (p['order_by'] ?? raw['order_by']) === 'string' ? ((p['order_by'] ?? raw['order_by']) as string) : undefined;
  const sortRaw = p['sort'] ?? raw['sort'];
  const sort: 'asc' | 'desc' = sortRaw === 'asc' ? 'asc' : 'desc';
  if (!opts.keyset || !opts.keyset.supports(orderBy, sort)) throw ApiError.error(405, KEYSET_NOT_AVAILABLE);
  const { limit } = readPageParams(ctx);
  const cursorValue = (name: string): number | undefined => {
    const v = p[name] ?? raw[name];
    if (v === undefined || v === null || v === '') return undefined;
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isSafeInteger(n)) throw ApiError.error(400, `${name} is invalid`);
    return n;
  };
  const cursor = sort === 'asc' ? { after: cursorValue('id_after') } : { before: cursorValue('id_before') };
  const items = opts.keyset.source.page(cursor, sort, limit);
  const headers: Record<string, string> = { ...opts.headers };
  const last = items[items.length - 1];
  if (last !== undefined) {
    const base = linkParams(ctx);
    delete base['id_after'];
    delete base['id_before'];
    const key = opts.keyset.source.keyOf(last);
    const next = { ...base, ...(sort === 'asc' ? { id_after: key } : { id_before: key }) };
    const link = `<${pageHref(ctx, next)}>; rel="next"`;
    headers['Links'] = link;
    headers['Link'] = link;
  }
  return json(items.map(map), { status: 200, headers });
}
