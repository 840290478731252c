/**
 * The geo module's decisions (ee/app/models/geo_node.rb, Geo::Node{Create,Update}Service, 14.x; reference §3):
 * attributes are normalised as the model's writers do (trailing slashes, stripped name, `internal_url` equal to
 * `url` kept as nil), then validated in the model's order with its messages.
 */
import * as E from 'fp-ts/lib/Either.js';
import { notFound, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import { authorizeAdmin, type AccessView } from '../access/abilities.js';
import { findGroup } from '../groups/queries.js';
import { findUserByNamespace } from '../users/queries.js';
import { Errors, exceedsLength, isRubyBlank, MAX_NAME, rubyStrip, tooLong } from '../shared/validation.js';
import { addressableUrlError, checkAddressableUrl } from '../shared/url-blocker.js';
import type { GeoCommand, GeoNodeAttributes } from './commands.js';
import type { GeoEvent } from './events.js';
import { GEO_NODE_DEFAULTS, type GeoNode, type GeoSlice } from './projection.js';
import { findGeoNode, geoNodes } from './queries.js';

export type GeoView = AccessView & { readonly geo: GeoSlice };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `add_ending_slash`: blank values stay as they are. */
export const withEndingSlash = (value: string): string => (isRubyBlank(value) || value.endsWith('/') ? value : `${value}/`);

/** `StripAttribute` (`strip_attributes :name`, before validation): Ruby's `strip!`. */
const strip = (value: string): string => rubyStrip(value);

/**
 * `url=` then `AddressableUrlValidator#strip_value!`, which writes the stripped value back through `url=`: the slash
 * is added, surrounding whitespace goes, and the slash is added again where stripping took it off the end.
 */
const nodeUrl = (value: string): string => withEndingSlash(rubyStrip(withEndingSlash(value)));

/** Applies the attributes given (absent ones keep their values) as the model's writers do. */
const assign = (base: Mutable<GeoNode>, attributes: GeoNodeAttributes & { readonly primary?: boolean | null }): Mutable<GeoNode> => {
  const node = { ...base };
  if (attributes.primary !== undefined && attributes.primary !== null) node.primary = attributes.primary;
  if (attributes.enabled !== undefined && attributes.enabled !== null) node.enabled = attributes.enabled;
  if (attributes.url !== undefined) node.url = nodeUrl(attributes.url ?? '');
  if (attributes.name !== undefined) node.name = strip(attributes.name ?? '');
  // The name reader adds the slash when the name is the url without it (names taken from the external URL).
  if (node.name !== '' && withEndingSlash(node.name) === node.url) node.name = node.url;
  if (attributes.internal_url !== undefined) {
    const internal = nodeUrl(attributes.internal_url ?? '');
    node.internal_url = internal === '' || internal === node.url ? null : internal;
  }
  for (const field of ['files_max_capacity', 'repos_max_capacity', 'verification_max_capacity', 'container_repositories_max_capacity', 'minimum_reverification_interval'] as const) {
    const value = attributes[field];
    if (value !== undefined && value !== null) node[field] = value;
  }
  if (attributes.sync_object_storage !== undefined && attributes.sync_object_storage !== null) node.sync_object_storage = attributes.sync_object_storage;
  if (attributes.selective_sync_type !== undefined) node.selective_sync_type = attributes.selective_sync_type;
  if (attributes.selective_sync_shards !== undefined) node.selective_sync_shards = [...(attributes.selective_sync_shards ?? [])];
  if (attributes.selective_sync_namespace_ids !== undefined) node.selective_sync_namespace_ids = [...new Set(attributes.selective_sync_namespace_ids ?? [])];
  return node;
};

/** The model's validations, in its order. */
const validate = (state: GeoView, node: GeoNode, currentNodeName: string): E.Either<DomainError, GeoNode> => {
  const others = geoNodes(state.geo).filter((other) => other.id !== node.id);
  const errors = new Errors();
  errors.check(node.name !== '', 'name', "can't be blank");
  errors.check(node.name === '' || !others.some((other) => other.name.toLowerCase() === node.name.toLowerCase()), 'name', 'has already been taken');
  errors.check(!exceedsLength(node.name, MAX_NAME), 'name', tooLong(MAX_NAME));
  // `validates :url, presence: true, addressable_url: true` (http and https): a blank url gets both messages.
  errors.check(!isRubyBlank(node.url), 'url', "can't be blank");
  // A URL without a host (`http:///`, `http:x`) passes `addressable_url`, but a secondary's save builds its OAuth
  // callback URL from the host first (`update_oauth_application!`), which fails without one (a 500 there): it is
  // refused as "must be a valid URL" instead.
  const url = checkAddressableUrl(node.url);
  const urlProblem = url.error ?? (node.primary || url.url.hostname ? null : 'must be a valid URL');
  if (urlProblem) errors.add('url', urlProblem);
  // `validates :internal_url, addressable_url: true, allow_blank: true` (a blank one is kept as nil).
  const internalProblem = node.internal_url === null ? null : addressableUrlError(node.internal_url);
  if (internalProblem) errors.add('internal_url', internalProblem);
  if (node.primary) {
    errors.check(!others.some((other) => other.primary), 'primary', 'node already exists');
    errors.check(node.enabled, 'enabled', 'Geo primary node cannot be disabled');
  }
  const type = node.selective_sync_type;
  errors.check(type === null || type === '' || type === 'namespaces' || type === 'shards', 'selective_sync_type', 'is not included in the list');
  for (const field of ['repos_max_capacity', 'files_max_capacity', 'verification_max_capacity', 'container_repositories_max_capacity'] as const) {
    errors.check(node[field] >= 0, field, 'must be greater than or equal to 0');
  }
  errors.check(node.minimum_reverification_interval >= 1, 'minimum_reverification_interval', 'must be greater than or equal to 1');
  errors.check(node.primary || node.name !== currentNodeName, 'base', 'Current node must be the primary node or you will be locking yourself out');
  return errors.toEither(node);
};

/**
 * `namespace_ids=` finds every namespace first (groups and personal namespaces alike): an unknown id is
 * RecordNotFound ("404 Not found").
 */
const checkNamespaces = (state: GeoView, ids: readonly number[] | null | undefined): DomainError | null =>
  (ids ?? []).every((id) => findGroup(state.groups, id) !== undefined || findUserByNamespace(state.users, id) !== undefined) ? null : notFound(undefined, '404 Not found');

/** A node as its events carry it (plain arrays). */
const eventData = (node: GeoNode) => ({ ...node, selective_sync_shards: [...node.selective_sync_shards], selective_sync_namespace_ids: [...node.selective_sync_namespace_ids] });

const missingNode: DomainError = notFound(undefined, '404 Not found');

export const decide = (issued: Issued<GeoCommand>, state: GeoView): E.Either<DomainError, readonly GeoEvent[]> => {
  const { command, at, actor } = issued;
  const admin = authorizeAdmin(state, actor.userId);
  if (E.isLeft(admin)) return admin;
  switch (command.type) {
    case 'CreateGeoNode': {
      const missing = checkNamespaces(state, command.attributes.selective_sync_namespace_ids);
      if (missing) return E.left(missing);
      const blank: Mutable<GeoNode> = {
        ...GEO_NODE_DEFAULTS,
        selective_sync_shards: [],
        selective_sync_namespace_ids: [],
        id: state.geo.lastNodeId + 1,
        name: '',
        url: '',
        internal_url: null,
        created_at: at,
        updated_at: at,
      };
      return E.map((node: GeoNode): readonly GeoEvent[] => [{ type: 'GeoNodeCreated', data: eventData(node) }])(validate(state, assign(blank, command.attributes), command.current_node_name));
    }
    case 'UpdateGeoNode': {
      const existing = findGeoNode(state.geo, command.id);
      if (!existing) return E.left(missingNode);
      const missing = checkNamespaces(state, command.attributes.selective_sync_namespace_ids);
      if (missing) return E.left(missing);
      const updated = assign({ ...existing, selective_sync_shards: [...existing.selective_sync_shards], selective_sync_namespace_ids: [...existing.selective_sync_namespace_ids] }, command.attributes);
      return E.map((node: GeoNode): readonly GeoEvent[] => {
        const unchanged = JSON.stringify({ ...node, updated_at: '' }) === JSON.stringify({ ...existing, updated_at: '' });
        // An update that changes nothing saves nothing (Rails skips the UPDATE).
        return unchanged ? [] : [{ type: 'GeoNodeUpdated', data: eventData({ ...node, updated_at: at }) }];
      })(validate(state, updated, command.current_node_name));
    }
    case 'DeleteGeoNode':
      return findGeoNode(state.geo, command.id) ? E.right([{ type: 'GeoNodeDeleted', data: { id: command.id, at } }]) : E.left(missingNode);
    case 'RecordGeoNodeStatus':
      if (!findGeoNode(state.geo, command.geo_node_id)) return E.left(notFound('GeoNode'));
      return E.right([{ type: 'GeoNodeStatusRecorded', data: { geo_node_id: command.geo_node_id, ...command.report, at } }]);
  }
};
