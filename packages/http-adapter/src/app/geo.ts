/**
 * What the Geo routes need from the process that serves them: the node's name (`geo.node_name`), its live status
 * (the platform keeps the current node's status in a cache its metrics worker refreshes; here it is computed from
 * real positions when asked) and, on a secondary, the repositories that failed to sync.
 */
import type { Application, ForgefoldCommand, GeoNodeStatusReport, State } from '@forgefold/core';

/** One repository that failed to sync on a secondary (the platform's project registry row). */
export interface GeoSyncFailure {
  readonly project_id: number;
  readonly last_repository_synced_at: string | null;
  readonly last_repository_successful_sync_at: string | null;
  readonly repository_retry_count: number;
  readonly last_repository_sync_failure: string;
}

export interface GeoRuntime {
  /** The configured node name, or null: then the external URL with one trailing slash (the platform's default). */
  readonly nodeName: string | null;
  /** The serving node's status now, computed from its positions. */
  liveStatus(): GeoNodeStatusReport;
  /** Repositories that failed to sync (empty on a primary). */
  failures(): readonly GeoSyncFailure[];
}

/** `geo.node_name`: the configured name, else the external URL with exactly one trailing slash. */
export const currentNodeName = (runtime: GeoRuntime | undefined, baseUrl: string): string => runtime?.nodeName ?? `${baseUrl.replace(/\/+$/, '')}/`;

/**
 * A primary's (or a node without Geo configuration's) runtime: its last event is the log's head; it has no cursor
 * and syncs nothing.
 */
export const primaryGeoRuntime = (app: Application<ForgefoldCommand, State>, options: { readonly nodeName?: string | null; readonly version?: string } = {}): GeoRuntime => {
  let head = { position: 0, at: null as string | null };
  const remember = (position: number, at: string) => {
    if (position >= head.position) head = { position, at };
  };
  app.onCommitted((events) => {
    const last = events[events.length - 1];
    if (last) remember(last.globalPosition, last.recordedAt);
  });
  const lookUp = (position: number) => {
    if (position === 0) return;
    void app.events.readAll(position - 1, 1).then(
      (events) => events[0] && remember(events[0].globalPosition, events[0].recordedAt),
      () => undefined,
    );
  };
  lookUp(app.position);
  return {
    nodeName: options.nodeName ?? null,
    liveStatus: () => {
      // Another node on the same database may have moved the head: look its time up for the next request.
      if (app.position > head.position) lookUp(app.position);
      const repositories = countRepositories(app.state);
      return {
        status_message: 'Healthy',
        db_replication_lag_seconds: null,
        last_event_id: app.position,
        last_event_timestamp: head.position === app.position ? head.at : null,
        cursor_last_event_id: null,
        cursor_last_event_timestamp: null,
        projects_count: app.state.projects.count,
        repositories_count: repositories,
        repositories_synced_count: null,
        repositories_failed_count: null,
        version: options.version ?? null,
        revision: null,
      };
    },
    failures: () => [],
  };
};

const countRepositories = (state: State): number => state.projects.count;
