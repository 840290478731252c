/**
 * A Geo secondary: `forgefold serve` with FORGEFOLD_GEO_PRIMARY_URL. It registers nothing; once the primary lists it
 * (by FORGEFOLD_GEO_NODE_NAME) as an enabled secondary, it reads the primary's log from its cursor, appends the
 * events to its own store unchanged (same ids, same positions: the store's head IS the cursor, so it is as durable
 * as the events), folds them, and brings every repository the events touched to the refs its projection records
 * (`git fetch --prune` over the primary's smart HTTP, then the refs set to the projection's). It reports its status
 * to the primary every FORGEFOLD_GEO_STATUS_INTERVAL_MS and whenever its health changes.
 *
 * The primary unreachable: the secondary keeps serving reads from what it has, reports itself unhealthy (to whoever
 * asks it), and retries with back-off. The primary's log no longer extending the secondary's (restored from an older
 * backup): reported, never merged; the secondary stops following until an operator acts.
 */
import {
  findProject,
  findRepository,
  listRepositories,
  repositoryRefs,
  type Application,
  type Clock,
  type EventStore,
  type ForgefoldCommand,
  type GeoNodeStatusReport,
  type NewEvent,
  type RecordedEvent,
  type Replication,
  type ReplicationStatus,
  type State,
  type StreamWrite,
} from '@forgefold/core';
import type { GitRepositories, Sha } from '@forgefold/git';
import { geoHeaders, type GeoEventsPage, type GeoRuntime, type GeoSyncFailure } from '@forgefold/http-adapter';

export interface GeoSecondaryConfig {
  /** The primary's URL as secondaries reach it (its `internal_url`), without a trailing slash. */
  readonly primaryUrl: string;
  readonly nodeName: string;
  readonly secret: string;
  /** How often the status is reported (ms). */
  readonly statusIntervalMs: number;
  /** How long one long poll waits for the next event (ms). */
  readonly pollWaitMs?: number;
  /** Events per page while catching up. */
  readonly pageSize?: number;
}

/** A refusal from the primary: its status and message. 409 is a divergence; 401/403 a configuration problem. */
export class GeoRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GeoRefused';
  }
}

/** The `Replication` port over HTTP, plus the long poll and the divergence check the primary's endpoint offers. */
export class HttpReplication implements Replication {
  constructor(
    private readonly config: Pick<GeoSecondaryConfig, 'primaryUrl' | 'nodeName' | 'secret'>,
    private readonly extra: () => Omit<ReplicationStatus, 'cursorPosition' | 'cursorRecordedAt' | 'healthy' | 'health'> = () => ({}),
  ) {}

  private async call(path: string, init: RequestInit = {}): Promise<unknown> {
    const response = await fetch(`${this.config.primaryUrl}${path}`, {
      ...init,
      headers: { ...geoHeaders(this.config.secret, this.config.nodeName), ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    if (!response.ok) {
      const message = typeof body === 'object' && body !== null ? ((body as { message?: unknown; error?: unknown }).message ?? (body as { error?: unknown }).error) : body;
      throw new GeoRefused(response.status, `the primary answered ${response.status}: ${String(message)}`);
    }
    return body;
  }

  /** One page after `after`; with `waitMs`, answered as soon as there is one (or empty after the wait). */
  page(after: number, limit: number, options: { readonly waitMs?: number; readonly afterEventId?: string | null; readonly signal?: AbortSignal } = {}): Promise<GeoEventsPage> {
    const query = new URLSearchParams({ after: String(after), limit: String(limit) });
    if (options.waitMs) query.set('wait_ms', String(options.waitMs));
    if (options.afterEventId) query.set('after_event_id', options.afterEventId);
    return this.call(`/api/v4/geo/events?${query}`, options.signal ? { signal: options.signal } : {}) as Promise<GeoEventsPage>;
  }

  async readAfter(after: number, limit: number): Promise<readonly RecordedEvent[]> {
    return (await this.page(after, limit)).events;
  }

  async primaryHead(): Promise<number> {
    return (await this.page(0, 0)).head;
  }

  async reportStatus(status: ReplicationStatus): Promise<void> {
    const full = { ...this.extra(), ...status };
    const report: GeoNodeStatusReport = {
      status_message: full.healthy ? 'Healthy' : full.health,
      db_replication_lag_seconds: full.primaryHeadRecordedAt && full.cursorRecordedAt ? Math.max(0, Math.round((Date.parse(full.primaryHeadRecordedAt) - Date.parse(full.cursorRecordedAt)) / 1000)) : null,
      last_event_id: full.primaryHead ?? null,
      last_event_timestamp: full.primaryHeadRecordedAt ?? null,
      cursor_last_event_id: full.cursorPosition,
      cursor_last_event_timestamp: full.cursorRecordedAt,
      projects_count: full.projectsCount ?? null,
      repositories_count: full.repositories?.count ?? null,
      repositories_synced_count: full.repositories?.synced ?? null,
      repositories_failed_count: full.repositories?.failed ?? null,
      version: full.version ?? null,
      revision: null,
    };
    await this.call('/api/v4/geo/status', { method: 'POST', body: JSON.stringify(report) });
  }
}

/** Consecutive events of one stream become one write; the store assigns the same positions the primary did. */
const toWrites = (events: readonly RecordedEvent[]): StreamWrite[] => {
  const writes: { streamId: string; expected: 'any'; events: NewEvent[] }[] = [];
  for (const event of events) {
    const newEvent: NewEvent = { eventId: event.eventId, type: event.type, schemaVersion: event.schemaVersion, data: event.data, recordedAt: event.recordedAt, metadata: event.metadata };
    const last = writes[writes.length - 1];
    if (last && last.streamId === event.streamId) last.events.push(newEvent);
    else writes.push({ streamId: event.streamId, expected: 'any', events: [newEvent] });
  }
  return writes;
};

/** The projects whose repository an event may change (ref moves, default branch, creation, deletion). */
const projectsTouched = (event: RecordedEvent): number[] => {
  const data = event.data as { project_id?: unknown; id?: unknown } | null;
  if (data && typeof data.project_id === 'number') return [data.project_id];
  if (data && event.type.startsWith('Project') && typeof data.id === 'number') return [data.id];
  return [];
};

interface SyncEntry {
  attempts: number;
  nextAt: number;
  lastSyncedAt: string | null;
  lastSuccessAt: string | null;
  failure: string | null;
}

/** Back-off after the n-th failed sync of a repository: 1 s, 2 s, 4 s … at most 5 minutes. */
export const syncBackoffMs = (attempts: number): number => Math.min(300_000, 1_000 * 2 ** Math.max(0, attempts - 1));

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export class GeoSecondary implements GeoRuntime {
  readonly nodeName: string;
  private cursor = { position: 0, eventId: null as string | null, recordedAt: null as string | null };
  private primary = { head: null as number | null, recordedAt: null as string | null };
  private health: string | null = 'Not yet in contact with the primary';
  private diverged: string | null = null;
  private readonly registry = new Map<number, SyncEntry>();
  private readonly dirty = new Set<number>();
  private readonly stop = new AbortController();
  private syncWake: (() => void) | null = null;
  private loops: Promise<void>[] = [];
  private stopStatus: (() => void) | null = null;
  readonly replication: HttpReplication;

  constructor(
    private readonly app: Application<ForgefoldCommand, State>,
    private readonly store: EventStore,
    private readonly git: GitRepositories,
    private readonly clock: Clock,
    private readonly config: GeoSecondaryConfig,
    private readonly log: (entry: Readonly<Record<string, unknown>>) => void,
    private readonly version: string,
  ) {
    this.nodeName = config.nodeName;
    this.replication = new HttpReplication(config, () => ({
      ...(this.primary.head !== null ? { primaryHead: this.primary.head, primaryHeadRecordedAt: this.primary.recordedAt } : {}),
      repositories: this.repositoryCounts(),
      projectsCount: this.app.state.projects.count,
      version: this.version,
    }));
  }

  /** Reads the cursor (the store's head), queues every repository for a check, and starts following. */
  async start(): Promise<void> {
    const head = await this.store.headPosition();
    const [last] = head === 0 ? [] : await this.store.readAll(head - 1, 1);
    this.cursor = { position: head, eventId: last?.eventId ?? null, recordedAt: last?.recordedAt ?? null };
    // The sync state is not kept across restarts: every repository is compared with its projection again.
    for (const repository of this.repositoryIds()) this.dirty.add(repository);
    this.loops = [this.followLoop(), this.syncLoop()];
    let timer: NodeJS.Timeout | null = setInterval(() => void this.report(), this.config.statusIntervalMs);
    timer.unref();
    this.stopStatus = () => {
      if (timer) clearInterval(timer);
      timer = null;
    };
    void this.report();
  }

  async close(): Promise<void> {
    this.stop.abort();
    this.stopStatus?.();
    this.syncWake?.();
    await Promise.all(this.loops);
  }

  private repositoryIds(): number[] {
    return [...listRepositories(this.app.state.repositories)].map((record) => record.project_id);
  }

  private repositoryCounts(): { count: number; synced: number; failed: number } {
    const ids = this.repositoryIds();
    let failed = 0;
    let synced = 0;
    for (const id of ids) {
      const entry = this.registry.get(id);
      if (entry?.failure) failed++;
      else if (entry?.lastSuccessAt && !this.dirty.has(id)) synced++;
    }
    return { count: ids.length, synced, failed };
  }

  // --- the log ------------------------------------------------------------------------------------------------

  private setHealth(message: string | null): void {
    if (message === this.health) return;
    const was = this.health;
    this.health = message;
    this.log({ severity: message === null ? 'INFO' : 'WARN', message: message === null ? 'Geo: following the primary' : `Geo: ${message}` });
    // A change of health is reported at once (when the primary can hear it).
    if (was !== null || message !== null) void this.report();
  }

  private async followLoop(): Promise<void> {
    const signal = this.stop.signal;
    const pageSize = this.config.pageSize ?? 5_000;
    const waitMs = this.config.pollWaitMs ?? 25_000;
    let backoff = 250;
    let prefetched: Promise<GeoEventsPage> | null = null;
    while (!signal.aborted) {
      try {
        const page: GeoEventsPage = await (prefetched ?? this.replication.page(this.cursor.position, pageSize, { waitMs, afterEventId: this.cursor.eventId, signal }));
        prefetched = null;
        this.primary = { head: page.head, recordedAt: page.head_recorded_at };
        const last = page.events[page.events.length - 1];
        // Catching up: ask for the next page while this one is written and folded.
        if (last && page.events.length === pageSize) prefetched = this.replication.page(last.globalPosition, pageSize, { afterEventId: last.eventId, signal });
        prefetched?.catch(() => undefined);
        if (page.events.length > 0) await this.apply(page.events);
        this.diverged = null;
        this.setHealth(null);
        backoff = 250;
      } catch (error) {
        prefetched = null;
        if (signal.aborted) return;
        const message = error instanceof GeoRefused ? error.message : `the primary at ${this.config.primaryUrl} is unreachable: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`;
        if (error instanceof GeoRefused && error.status === 409) this.diverged = message;
        this.setHealth(error instanceof GeoRefused && error.status === 409 ? `Replication stopped: ${message}` : message);
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, 5_000);
      }
    }
  }

  /** Appends a page unchanged (the store checks that nothing else was appended since the cursor), then folds it. */
  private async apply(events: readonly RecordedEvent[]): Promise<void> {
    const first = events[0]!;
    if (first.globalPosition !== this.cursor.position + 1) throw new Error(`the primary sent position ${first.globalPosition} after ${this.cursor.position}`);
    const results = await this.store.commit(toWrites(events), { expectedPosition: this.cursor.position });
    const last = events[events.length - 1]!;
    const written = results[results.length - 1]!;
    if (written.duplicate || written.lastPosition !== last.globalPosition) throw new Error(`appending the primary's events at ${first.globalPosition} gave position ${written.lastPosition}, not ${last.globalPosition}`);
    this.cursor = { position: last.globalPosition, eventId: last.eventId, recordedAt: last.recordedAt };
    // Folded from the page in hand (reading it back from the store cost as much again as the fold of it).
    await this.app.foldAppended(events);
    let touched = false;
    for (const event of events) {
      for (const project of projectsTouched(event)) {
        this.dirty.add(project);
        touched = true;
      }
    }
    if (touched) this.syncWake?.();
  }

  // --- repositories -------------------------------------------------------------------------------------------

  private async syncLoop(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      const now = Date.now();
      const due = [...this.dirty].filter((id) => (this.registry.get(id)?.nextAt ?? 0) <= now);
      for (const id of due) {
        if (signal.aborted) return;
        this.dirty.delete(id);
        await this.syncRepository(id);
      }
      if (due.length > 0) continue;
      const next = Math.min(...[...this.dirty].map((id) => this.registry.get(id)?.nextAt ?? now), now + 60_000);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(10, next - now));
        this.syncWake = () => (clearTimeout(timer), resolve());
      });
      this.syncWake = null;
    }
  }

  /** Brings one repository to its projection's refs; a failure is retried with back-off. */
  private async syncRepository(id: number): Promise<void> {
    const state = this.app.state;
    const record = findRepository(state.repositories, id);
    const project = findProject(state.projects, id);
    const at = this.clock.now();
    const entry = this.registry.get(id) ?? { attempts: 0, nextAt: 0, lastSyncedAt: null, lastSuccessAt: null, failure: null };
    try {
      if (!record || !project) {
        const removed = await this.git.remove(id);
        if (removed._tag === 'Left' && removed.left._tag !== 'RepositoryNotFound') throw new Error(removed.left.message);
        this.registry.delete(id);
        return;
      }
      if (!(await this.git.exists(id))) {
        const created = await this.git.create(id, { default_branch: record.default_branch });
        if (created._tag === 'Left' && created.left._tag !== 'RepositoryExists') throw new Error(created.left.message);
      }
      const wanted = Object.fromEntries(Object.entries(repositoryRefs(record)).filter((entry): entry is [string, Sha] => entry[1] !== null));
      const repository = this.git.open(id);
      const current = await repository.refs();
      const same = current._tag === 'Right' && sameRefs(current.right, wanted);
      if (!same) {
        const auth = Buffer.from(`geo:${this.config.secret}`).toString('base64');
        const fetched = await this.git.fetchMirror(id, `${this.config.primaryUrl}/${project.path_with_namespace}.git`, { extraHeader: `Authorization: Basic ${auth}` });
        if (fetched._tag === 'Left') throw new Error(fetched.left.message);
        // The primary may be ahead of this secondary's cursor: the refs are the projection's, not the primary's now.
        const aligned = await repository.alignRefs(wanted);
        if (aligned._tag === 'Left') throw new Error(aligned.left.message);
      }
      const head = await repository.headBranch();
      if (head._tag === 'Right' && head.right !== record.default_branch) await repository.setHeadBranch(record.default_branch);
      this.registry.set(id, { attempts: 0, nextAt: 0, lastSyncedAt: at, lastSuccessAt: at, failure: null });
    } catch (error) {
      const attempts = entry.attempts + 1;
      const message = error instanceof Error ? error.message : String(error);
      this.registry.set(id, { attempts, nextAt: Date.now() + syncBackoffMs(attempts), lastSyncedAt: at, lastSuccessAt: entry.lastSuccessAt, failure: message });
      this.dirty.add(id);
      this.log({ severity: 'WARN', message: `Geo: syncing the repository of project ${id} failed (attempt ${attempts}): ${message}` });
    }
  }

  /** Tests and the on-demand report: every repository is checked again now. */
  resync(): void {
    for (const id of this.repositoryIds()) {
      this.dirty.add(id);
      const entry = this.registry.get(id);
      if (entry) entry.nextAt = 0;
    }
    this.syncWake?.();
  }

  // --- status -------------------------------------------------------------------------------------------------

  get position(): number {
    return this.cursor.position;
  }

  get divergence(): string | null {
    return this.diverged;
  }

  private status(): ReplicationStatus {
    return { cursorPosition: this.cursor.position, cursorRecordedAt: this.cursor.recordedAt, healthy: this.health === null, health: this.health ?? 'Healthy' };
  }

  /** Sends the status to the primary (failures are only logged: the primary may be what is down). */
  async report(): Promise<boolean> {
    try {
      await this.replication.reportStatus(this.status());
      return true;
    } catch {
      return false;
    }
  }

  liveStatus(): GeoNodeStatusReport {
    const repositories = this.repositoryCounts();
    const status = this.status();
    return {
      status_message: status.healthy ? 'Healthy' : status.health,
      db_replication_lag_seconds:
        this.primary.recordedAt && this.cursor.recordedAt ? Math.max(0, Math.round((Date.parse(this.primary.recordedAt) - Date.parse(this.cursor.recordedAt)) / 1000)) : null,
      last_event_id: this.primary.head,
      last_event_timestamp: this.primary.recordedAt,
      cursor_last_event_id: this.cursor.position,
      cursor_last_event_timestamp: this.cursor.recordedAt,
      projects_count: this.app.state.projects.count,
      repositories_count: repositories.count,
      repositories_synced_count: repositories.synced,
      repositories_failed_count: repositories.failed,
      version: this.version,
      revision: null,
    };
  }

  failures(): readonly GeoSyncFailure[] {
    const failures: GeoSyncFailure[] = [];
    for (const [id, entry] of [...this.registry].sort((a, b) => a[0] - b[0])) {
      if (!entry.failure) continue;
      failures.push({
        project_id: id,
        last_repository_synced_at: entry.lastSyncedAt,
        last_repository_successful_sync_at: entry.lastSuccessAt,
        repository_retry_count: entry.attempts,
        last_repository_sync_failure: entry.failure,
      });
    }
    return failures;
  }
}

const sameRefs = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
};
