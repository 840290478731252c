import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { id: number }) => `geo-node-${data.id}`;

const node = t.type({
  id: t.number,
  name: t.string,
  url: t.string,
  internal_url: nullable(t.string),
  primary: t.boolean,
  enabled: t.boolean,
  files_max_capacity: t.number,
  repos_max_capacity: t.number,
  verification_max_capacity: t.number,
  container_repositories_max_capacity: t.number,
  sync_object_storage: t.boolean,
  selective_sync_type: nullable(t.string),
  selective_sync_shards: t.array(t.string),
  selective_sync_namespace_ids: t.array(t.number),
  minimum_reverification_interval: t.number,
  created_at: t.string,
  updated_at: t.string,
});

const count = nullable(t.number);

export const geoEvents = defineEvents({
  GeoNodeCreated: { version: 1, stream, codec: node },
  /** The node as it is after the update (every attribute). */
  GeoNodeUpdated: { version: 1, stream, codec: node },
  GeoNodeDeleted: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  GeoNodeStatusRecorded: {
    version: 1,
    stream: (data: { geo_node_id: number }) => `geo-node-${data.geo_node_id}`,
    codec: t.type({
      geo_node_id: t.number,
      status_message: nullable(t.string),
      db_replication_lag_seconds: count,
      last_event_id: count,
      last_event_timestamp: nullable(t.string),
      cursor_last_event_id: count,
      cursor_last_event_timestamp: nullable(t.string),
      projects_count: count,
      repositories_count: count,
      repositories_synced_count: count,
      repositories_failed_count: count,
      version: nullable(t.string),
      revision: nullable(t.string),
      at: t.string,
    }),
  },
});

export type GeoEvent = EventsOf<typeof geoEvents>;
