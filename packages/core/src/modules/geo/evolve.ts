/** The geo module's evolve: nodes and their last reported status. */
import { tableDelete, tableGet, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { GeoEvent } from './events.js';
import type { GeoSlice } from './projection.js';

export type GeoDraft = Writable<{ readonly geo: GeoSlice }, 'geo'>;

export const evolve = (state: GeoDraft, event: GeoEvent): void => {
  const geo = state.geo;
  switch (event.type) {
    case 'GeoNodeCreated':
      tableSet(geo.nodes, event.data.id, event.data);
      if (event.data.id > geo.lastNodeId) geo.lastNodeId = event.data.id;
      return;
    case 'GeoNodeUpdated':
      tableSet(geo.nodes, event.data.id, event.data);
      return;
    case 'GeoNodeDeleted':
      tableDelete(geo.nodes, event.data.id);
      tableDelete(geo.statuses, event.data.id);
      return;
    case 'GeoNodeStatusRecorded': {
      const { at, ...report } = event.data;
      const previous = tableGet(geo.statuses, event.data.geo_node_id);
      const healthy = report.status_message === null || report.status_message === '' || report.status_message === 'Healthy';
      tableSet(geo.statuses, event.data.geo_node_id, {
        ...report,
        last_successful_status_check_at: healthy ? at : (previous?.last_successful_status_check_at ?? null),
        updated_at: at,
      });
      return;
    }
  }
};
