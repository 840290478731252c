/** Decider specs of the geo module (reference §3.2, §3.3). */
import { forbidden, notFound, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, groupCreated, userCreated, type Spec } from './spec.js';

const root = userCreated(1, 'root', { admin: true });
const alice = userCreated(2, 'alice');
const HERE = 'https://primary.example.com/';

const node = (id: number, name: string, url: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  url,
  internal_url: null,
  primary: false,
  enabled: true,
  files_max_capacity: 10,
  repos_max_capacity: 25,
  verification_max_capacity: 100,
  container_repositories_max_capacity: 10,
  sync_object_storage: false,
  selective_sync_type: null,
  selective_sync_shards: [],
  selective_sync_namespace_ids: [],
  minimum_reverification_interval: 7,
  created_at: AT,
  updated_at: AT,
  ...extra,
});
const created = (data: ReturnType<typeof node>): ForgefoldEvent => ({ type: 'GeoNodeCreated', data }) as ForgefoldEvent;
const primary = created(node(1, HERE, HERE, { primary: true }));
const secondary = created(node(2, 'tokyo', 'https://tokyo.example.com/'));

/** A secondary's report: recorded as given, with the node and the time. */
const REPORT = {
  status_message: 'Healthy',
  db_replication_lag_seconds: 0,
  last_event_id: 10,
  last_event_timestamp: AT,
  cursor_last_event_id: 9,
  cursor_last_event_timestamp: AT,
  projects_count: 1,
  repositories_count: 1,
  repositories_synced_count: 1,
  repositories_failed_count: 0,
  version: '14.7.0-ee',
  revision: 'forgefold',
} as const;

export const geoSpecs: Record<string, Spec> = {
  'an administrator adds the primary: defaults, and the url gains its slash (so does a name equal to it)': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, name: 'https://primary.example.com', url: 'https://primary.example.com' }, current_node_name: HERE },
    then: [created(node(1, HERE, HERE, { primary: true }))],
  },
  'a secondary: a stripped name, internal_url equal to url is kept as nil, capacities and selective sync': {
    given: [root, groupCreated(5, 'team'), primary],
    as: 1,
    when: {
      type: 'CreateGeoNode',
      attributes: { name: '  tokyo ', url: 'https://tokyo.example.com', internal_url: 'https://tokyo.example.com/', repos_max_capacity: 3, selective_sync_type: 'namespaces', selective_sync_namespace_ids: [5, 5] },
      current_node_name: HERE,
    },
    then: [created(node(2, 'tokyo', 'https://tokyo.example.com/', { repos_max_capacity: 3, selective_sync_type: 'namespaces', selective_sync_namespace_ids: [5] }))],
  },
  'the model validations, in order, with their messages': {
    given: [root, secondary],
    as: 1,
    when: {
      type: 'CreateGeoNode',
      attributes: { name: 'TOKYO', url: '', internal_url: 'ftp://x.example.com', selective_sync_type: 'all', files_max_capacity: -1, minimum_reverification_interval: 0 },
      current_node_name: HERE,
    },
    error: validation({
      name: ['has already been taken'],
      url: ["can't be blank", 'must be a valid URL'],
      internal_url: ['is blocked: Only allowed schemes are http, https'],
      selective_sync_type: ['is not included in the list'],
      files_max_capacity: ['must be greater than or equal to 0'],
      minimum_reverification_interval: ['must be greater than or equal to 1'],
    }),
  },
  // A primary's: a secondary's save parses its url (Ruby's `URI`) for the OAuth callback before validating, and ends
  // in a 500 on what that cannot parse; Forgefold answers the validator's messages for both.
  'URLs are checked by the shared addressable_url rule (UrlBlocker reasons), so one without a scheme is blocked': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, name: HERE, url: 's7.example.com', internal_url: 'https://in valid.example.com' }, current_node_name: HERE },
    error: validation({ url: ['is blocked: Only allowed schemes are http, https'], internal_url: ['is blocked: URI is invalid'] }),
  },
  'a hostname that starts with neither a letter nor a digit is blocked': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, name: HERE, url: 'https://-primary.example.com' }, current_node_name: HERE },
    error: validation({ url: ['is blocked: Hostname or IP address invalid'] }),
  },
  'trailing whitespace: the slash goes after it, and the host is then invalid': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, name: HERE, url: 'https://primary.example.com ' }, current_node_name: HERE },
    error: validation({ url: ['is blocked: URI is invalid'] }),
  },
  'the validator keeps the URLs stripped (strip_value!), with their slash': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, name: HERE, url: ' https://primary.example.com', internal_url: '\thttps://primary.internal/' }, current_node_name: HERE },
    then: [created(node(1, HERE, HERE, { primary: true, internal_url: 'https://primary.internal/' }))],
  },
  'an internal_url equal to the url once stripped is kept as nil': {
    given: [root, primary],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { name: 'osaka', url: 'https://osaka.example.com/', internal_url: ' https://osaka.example.com' }, current_node_name: HERE },
    then: [created(node(2, 'osaka', 'https://osaka.example.com/'))],
  },
  'a secondary needs a host in its url (its OAuth callback is built from it); its internal_url does not': {
    given: [root, primary],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { name: 'osaka', url: 'http:///', internal_url: 'http:///' }, current_node_name: HERE },
    error: validation({ url: ['must be a valid URL'] }),
  },
  'a hostless primary url passes addressable_url': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, name: HERE, url: 'http:///' }, current_node_name: HERE },
    then: [created(node(1, HERE, 'http:///', { primary: true }))],
  },
  'a second primary, a disabled primary': {
    given: [root, primary],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { primary: true, enabled: false, name: 'other', url: 'https://other.example.com' }, current_node_name: HERE },
    error: validation({ primary: ['node already exists'], enabled: ['Geo primary node cannot be disabled'] }),
  },
  'a secondary named as the current node would lock the administrator out': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { name: HERE, url: 'https://elsewhere.example.com' }, current_node_name: HERE },
    error: validation({ base: ['Current node must be the primary node or you will be locking yourself out'] }),
  },
  'an unknown namespace id is not found': {
    given: [root],
    as: 1,
    when: { type: 'CreateGeoNode', attributes: { name: 'x', url: 'https://x.example.com', selective_sync_namespace_ids: [9] }, current_node_name: HERE },
    error: notFound(undefined, '404 Not found'),
  },
  'only administrators manage Geo nodes': {
    given: [root, alice],
    as: 2,
    when: { type: 'CreateGeoNode', attributes: { name: 'x', url: 'https://x.example.com' }, current_node_name: HERE },
    error: forbidden(),
  },
  'an update changes what is given and stamps updated_at': {
    given: [root, primary, secondary],
    as: 1,
    at: '2026-01-02T00:00:00.000Z',
    when: { type: 'UpdateGeoNode', id: 2, attributes: { url: 'https://tokyo2.example.com', enabled: false }, current_node_name: HERE },
    then: [{ type: 'GeoNodeUpdated', data: node(2, 'tokyo', 'https://tokyo2.example.com/', { enabled: false, updated_at: '2026-01-02T00:00:00.000Z' }) } as ForgefoldEvent],
  },
  'an empty update records nothing': {
    given: [root, secondary],
    as: 1,
    when: { type: 'UpdateGeoNode', id: 2, attributes: {}, current_node_name: HERE },
    then: [],
  },
  'a primary cannot be disabled': {
    given: [root, primary],
    as: 1,
    when: { type: 'UpdateGeoNode', id: 1, attributes: { enabled: false }, current_node_name: HERE },
    error: validation({ enabled: ['Geo primary node cannot be disabled'] }),
  },
  'updating an unknown node': { given: [root], as: 1, when: { type: 'UpdateGeoNode', id: 4, attributes: {}, current_node_name: HERE }, error: notFound(undefined, '404 Not found') },
  'deleting a node (the primary too)': { given: [root, primary], as: 1, when: { type: 'DeleteGeoNode', id: 1 }, then: [{ type: 'GeoNodeDeleted', data: { id: 1, at: AT } }] },
  'deleting an unknown node': { given: [root], as: 1, when: { type: 'DeleteGeoNode', id: 1 }, error: notFound(undefined, '404 Not found') },
  'a secondary’s status report is recorded as the system': {
    given: [root, primary, secondary],
    when: {
      type: 'RecordGeoNodeStatus',
      geo_node_id: 2,
      report: REPORT,
    },
    then: [
      {
        type: 'GeoNodeStatusRecorded',
        data: {
          geo_node_id: 2,
          ...REPORT,
          at: AT,
        },
      },
    ],
  },
};
