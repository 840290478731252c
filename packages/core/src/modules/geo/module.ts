/** The geo module: Geo nodes (sites) and the statuses they report. */
import { defineModule } from '../../kernel/module.js';
import type { GeoCommand } from './commands.js';
import { decide, type GeoView } from './decider.js';
import { evolve, type GeoDraft } from './evolve.js';
import { geoEvents } from './events.js';
import { initialGeo, type GeoSlice } from './projection.js';

export const geoModule = defineModule<'geo', { readonly geo: GeoSlice }, GeoView, GeoDraft, GeoCommand, typeof geoEvents>({
  name: 'geo',
  version: 1,
  initial: () => ({ geo: initialGeo() }),
  events: geoEvents,
  commands: ['CreateGeoNode', 'UpdateGeoNode', 'DeleteGeoNode', 'RecordGeoNodeStatus'],
  decide,
  evolve,
});
