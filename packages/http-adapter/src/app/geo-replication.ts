/**
 * The primary's side of Geo replication (the platform's Geo API, `ee/lib/api/geo.rb`, in Forgefold's terms): a
 * secondary reads the log from its cursor (catch-up, then a long poll that answers as soon as the next event is
 * committed) and posts its status. Both authenticate with the shared secret (`Authorization: GL-Geo <secret>`) and
 * name the node (`X-Geo-Node-Name`, URI-encoded); the name must be an enabled secondary in the node list.
 *
 * A secondary sends the id of its cursor's event: when the primary's event at that position has another id, or the
 * primary's head is behind the cursor (it was restored from an older backup), the answer is 409 and the secondary
 * reports the divergence instead of merging two histories.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import { findGeoNodeByName, systemActor, type GeoNodeStatusReport, type RecordedEvent } from '@forgefold/core';
import { ApiError, type RawRoute, type RequestInfo } from '../http/index.js';
import type { ApiDeps } from './deps.js';

/** Longest page and longest wait a secondary may ask for. */
export const GEO_MAX_PAGE = 5_000;
export const GEO_MAX_WAIT_MS = 30_000;

/** The headers a secondary sends. */
export const geoHeaders = (secret: string, nodeName: string): Record<string, string> => ({ Authorization: `GL-Geo ${secret}`, 'X-Geo-Node-Name': encodeURIComponent(nodeName) });

/** What `GET /api/v4/geo/events` answers. */
export interface GeoEventsPage {
  readonly head: number;
  /** `recordedAt` of the primary's head event (null for an empty log). */
  readonly head_recorded_at: string | null;
  readonly events: readonly RecordedEvent[];
}

const sameSecret = (given: string, secret: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

const send = (res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-store' });
  res.end(text);
};

const readJson = async (req: IncomingMessage, max: number): Promise<unknown> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw ApiError.message(413, '413 Request Entity Too Large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw ApiError.error(400, 'The body must be a JSON object');
  }
};

const integer = (query: URLSearchParams, name: string, fallback: number, max: number): number => {
  const text = query.get(name);
  if (text === null) return fallback;
  if (!/^\d+$/.test(text)) throw ApiError.error(400, `${name} is invalid`);
  return Math.min(Number(text), max);
};

const nullableNumber = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const nullableString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A status report as the primary records it (unknown fields are dropped, wrong types are null). */
const reportOf = (body: unknown): GeoNodeStatusReport => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiError.error(400, 'The body must be a JSON object');
  const value = body as Record<string, unknown>;
  return {
    status_message: nullableString(value['status_message']),
    db_replication_lag_seconds: nullableNumber(value['db_replication_lag_seconds']),
    last_event_id: nullableNumber(value['last_event_id']),
    last_event_timestamp: nullableString(value['last_event_timestamp']),
    cursor_last_event_id: nullableNumber(value['cursor_last_event_id']),
    cursor_last_event_timestamp: nullableString(value['cursor_last_event_timestamp']),
    projects_count: nullableNumber(value['projects_count']),
    repositories_count: nullableNumber(value['repositories_count']),
    repositories_synced_count: nullableNumber(value['repositories_synced_count']),
    repositories_failed_count: nullableNumber(value['repositories_failed_count']),
    version: nullableString(value['version']),
    revision: nullableString(value['revision']),
  };
};

export const geoReplicationRoute = (deps: ApiDeps, secret: string | null): RawRoute => {
  /** Long polls in progress: answered at once when the server closes. */
  const polling = new Set<() => void>();
  let closing = false;
  return {
    name: 'Geo replication',
    close: () => {
      closing = true;
      for (const answer of polling) answer();
    },
    matches: (path) => path === '/api/v4/geo/events' || path === '/api/v4/geo/status',
    handle: async (req, res, request: RequestInfo) => {
      // Without a secret this node serves no secondary: the routes do not exist.
      if (secret === null) throw ApiError.error(404, '404 Not Found');
      const header = request.headers.authorization ?? '';
      const match = /^GL-Geo\s+(\S+)$/.exec(header);
      if (!match || !sameSecret(match[1]!, secret)) throw ApiError.message(401, '401 Unauthorized');
      let name = '';
      try {
        name = decodeURIComponent(String(request.headers['x-geo-node-name'] ?? ''));
      } catch {
        // reported below
      }
      const node = findGeoNodeByName(deps.app.state.geo, name);
      if (!node || node.primary || !node.enabled) throw ApiError.message(403, `403 Forbidden - ${JSON.stringify(name)} is not an enabled secondary Geo node of this primary`);
      if (request.path === '/api/v4/geo/status') {
        if (request.method !== 'POST') throw ApiError.error(405, '405 Not Allowed');
        const report = reportOf(await readJson(req, 64 * 1024));
        const recorded = await deps.app.execute(systemActor, { type: 'RecordGeoNodeStatus', geo_node_id: node.id, report });
        if (E.isLeft(recorded)) throw ApiError.domain(recorded.left);
        send(res, 201, { geo_node_id: node.id });
        return { userId: null };
      }
      if (request.method !== 'GET') throw ApiError.error(405, '405 Not Allowed');
      const query = new URLSearchParams(request.query);
      const after = integer(query, 'after', 0, Number.MAX_SAFE_INTEGER);
      const limit = integer(query, 'limit', 1_000, GEO_MAX_PAGE);
      const waitMs = integer(query, 'wait_ms', 0, GEO_MAX_WAIT_MS);
      const store = deps.app.events;
      const afterEventId = query.get('after_event_id');
      let head = await store.headPosition();
      if (after > head) throw ApiError.message(409, `409 Conflict - the cursor ${after} is ahead of this primary's head ${head}: the primary's log was restored from an older backup`);
      if (after > 0 && afterEventId) {
        const [atCursor] = await store.readAll(after - 1, 1);
        if (!atCursor || atCursor.eventId !== afterEventId) {
          throw ApiError.message(409, `409 Conflict - the event at position ${after} is ${atCursor?.eventId ?? 'missing'} here, not ${afterEventId}: the logs diverge`);
        }
      }
      let events = limit === 0 ? [] : await store.readAll(after, limit);
      if (events.length === 0 && limit > 0 && waitMs > 0 && !closing) {
        // Long poll: the answer goes out as soon as the next event is committed (or folded from another node).
        let answer = () => undefined as void;
        const closed = new Promise<void>((resolve) => {
          answer = resolve;
        });
        // One listener per poll on a kept-alive socket: removed after the poll, or they pile up on the connection.
        req.socket.once('close', answer);
        polling.add(answer);
        await Promise.race([deps.app.waitForPosition(after + 1, waitMs), closed]).finally(() => {
          polling.delete(answer);
          req.socket.off('close', answer);
        });
        if (req.socket.destroyed) return { userId: null };
        events = await store.readAll(after, limit);
      }
      head = Math.max(head, events[events.length - 1]?.globalPosition ?? 0);
      const last = events[events.length - 1];
      const headEvent = last && last.globalPosition === head ? last : head === 0 ? undefined : (await store.readAll(head - 1, 1))[0];
      const page: GeoEventsPage = { head, head_recorded_at: headEvent?.recordedAt ?? null, events };
      send(res, 200, page);
      return { userId: null };
    },
  };
};
