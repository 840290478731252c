/**
 * The Geo nodes API (ee/lib/api/geo_nodes.rb, 14.x; reference §3): administrators only, checked before the
 * parameters. The current node (`geo.node_name`) answers its own status from its live positions, as the platform's
 * cache does; other nodes' statuses are the rows their reports stored.
 */
import * as E from 'fp-ts/lib/Either.js';
import { findGeoNode, findGeoNodeByName, findGeoNodeStatus, geoNodes, geoNodeStatuses, notFound, type DomainError, type GeoNode, type GeoNodeAttributes, type GeoNodeStatus, type State } from '@forgefold/core';
import { created, noContent, ok, route, type AnyRouteDef } from '../../http/index.js';
import { commandRoute, listRoute, nothing } from '../../app/routes.js';
import { presentContext, type ApiDeps, type Ctx } from '../../app/deps.js';
import { currentNodeName } from '../../app/geo.js';
import { createParams, failuresParams, idParams, listParams, statusParams, updateParams } from './params.js';
import { geoNodeEntity, geoNodeStatusEntity, syncFailureEntity } from './entities.js';

/** `GeoNode.find` raising RecordNotFound. */
const RECORD_NOT_FOUND: DomainError = notFound(undefined, '404 Not found');

/** The attributes a request gave (`declared_params(include_missing: false)`). */
const attributesOf = (params: Record<string, unknown>): GeoNodeAttributes => {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined && key !== 'id') given[key] = value;
  return given as GeoNodeAttributes;
};

export const geoNodeRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const baseUrl = (ctx: Ctx) => presentContext(deps, ctx).baseUrl;
  const nodeName = (ctx: Ctx) => currentNodeName(deps.geo, baseUrl(ctx));
  const present = (ctx: Ctx, node: GeoNode) => geoNodeEntity(node, baseUrl(ctx), nodeName(ctx));
  const findNode = (ctx: Ctx, state: State): E.Either<DomainError, GeoNode> => {
    const node = findGeoNode(state.geo, Number(ctx.routeParams['id']));
    return node ? E.right(node) : E.left(RECORD_NOT_FOUND);
  };
  /** The current node's status now; any other node's stored row. */
  const statusOf = (ctx: Ctx, state: State, node: GeoNode): GeoNodeStatus | undefined => {
    if (node.name === nodeName(ctx) && deps.geo) {
      const now = deps.clock.now();
      const live = deps.geo.liveStatus();
      const healthy = live.status_message === null || live.status_message === 'Healthy';
      const stored = findGeoNodeStatus(state.geo, node.id);
      return { ...live, geo_node_id: node.id, last_successful_status_check_at: healthy ? now : (stored?.last_successful_status_check_at ?? null), updated_at: now };
    }
    return findGeoNodeStatus(state.geo, node.id);
  };
  const presentStatus = (ctx: Ctx, state: State, status: GeoNodeStatus) =>
    geoNodeStatusEntity(status, findGeoNode(state.geo, status.geo_node_id), state, baseUrl(ctx), deps.clock.now());
  return [
    commandRoute(deps, {
      method: 'POST',
      path: '/geo_nodes',
      admin: true,
      params: createParams,
      find: nothing,
      command: (ctx) => ({ type: 'CreateGeoNode', attributes: attributesOf(ctx.params), current_node_name: nodeName(ctx) }),
      present: (done, ctx) => {
        const event = done.events.find((candidate) => candidate.type === 'GeoNodeCreated')!;
        return created(present(ctx, findGeoNode(done.state.geo, (event.data as { id: number }).id)!));
      },
    }),
    listRoute(deps, {
      path: '/geo_nodes',
      admin: true,
      params: listParams,
      find: nothing,
      rows: (_ctx, state) => geoNodes(state.geo),
      present: (node, view) => geoNodeEntity(node, view.baseUrl, currentNodeName(deps.geo, view.baseUrl)),
    }),
    listRoute(deps, {
      path: '/geo_nodes/status',
      admin: true,
      // Live: the current node's status changes while the log stands still (a stopped replication).
      cache: false,
      params: listParams,
      find: nothing,
      rows: (ctx, state) => {
        // Stored rows (`GeoNodeStatus.all`); the current node's row is its live status, as its metrics worker keeps it.
        const current = findGeoNodeByName(state.geo, nodeName(ctx));
        const stored = geoNodeStatuses(state.geo).filter((status) => status.geo_node_id !== current?.id);
        const live = current ? statusOf(ctx, state, current) : undefined;
        return (live ? [...stored, live] : stored).sort((a, b) => a.geo_node_id - b.geo_node_id);
      },
      present: (status, view) => geoNodeStatusEntity(status, findGeoNode(view.state.geo, status.geo_node_id), view.state, view.baseUrl, deps.clock.now()),
    }),
    listRoute(deps, {
      path: '/geo_nodes/current/failures',
      admin: true,
      // Live: the current node's status changes while the log stands still (a stopped replication).
      cache: false,
      params: failuresParams,
      find: (ctx, state) => {
        const current = findGeoNodeByName(state.geo, nodeName(ctx));
        if (!current) return E.left(notFound('Geo node not found'));
        if (current.primary) return E.left({ _tag: 'Forbidden', reason: 'Failures can only be requested from a secondary node' });
        if (!['sync', 'verification', 'checksum_mismatch'].includes(ctx.params.failure_type ?? 'sync')) return E.left(notFound('Failure type unknown'));
        return E.right(current);
      },
      // Forgefold syncs repositories only, and verifies none: wiki and verification failures are always empty.
      rows: (ctx) => (ctx.params.type === 'wiki' || (ctx.params.failure_type ?? 'sync') !== 'sync' ? [] : [...(deps.geo?.failures() ?? [])]),
      present: (failure) => syncFailureEntity(failure),
    }),
    route({
      method: 'GET',
      path: '/geo_nodes/:id',
      admin: true,
      params: idParams,
      handler: (ctx) => {
        const node = findNode(ctx, deps.app.state);
        return E.isLeft(node) ? node.left : ok(present(ctx, node.right));
      },
    }),
    route({
      method: 'GET',
      path: '/geo_nodes/:id/status',
      admin: true,
      // Live: the current node's status changes while the log stands still (a stopped replication).
      cache: false,
      params: statusParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const node = findNode(ctx, state);
        if (E.isLeft(node)) return node.left;
        const status = statusOf(ctx, state, node.right);
        return status ? ok(presentStatus(ctx, state, status)) : notFound('Status for Geo node not found');
      },
    }),
    route({
      method: 'POST',
      path: '/geo_nodes/:id/repair',
      admin: true,
      params: idParams,
      handler: (ctx) => {
        // Secondaries here authenticate by the shared secret, never by an OAuth application: nothing is ever
        // missing, so repair changes nothing and answers the node's status (200, not 201).
        const state = deps.app.state;
        const node = findNode(ctx, state);
        if (E.isLeft(node)) return node.left;
        const status = statusOf(ctx, state, node.right);
        return ok(status ? presentStatus(ctx, state, status) : null);
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/geo_nodes/:id',
      admin: true,
      params: updateParams,
      find: findNode,
      command: (ctx, node) => ({ type: 'UpdateGeoNode', id: node.id, attributes: attributesOf(ctx.params), current_node_name: nodeName(ctx) }),
      present: (done, ctx, node) => ok(present(ctx, findGeoNode(done.state.geo, node.id)!)),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/geo_nodes/:id',
      admin: true,
      params: idParams,
      find: findNode,
      command: (_ctx, node) => ({ type: 'DeleteGeoNode', id: node.id }),
      present: () => noContent(),
    }),
  ];
};
