/**
 * Cluster events. The token and CA certificate appear only as ciphertext; `ClusterUpdated` names the fields that
 * changed (`platform_kubernetes.token` when a new token was given) beside their new values.
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `clusters-${data.project_id}`;

const authorizationType = t.keyof({ rbac: null, abac: null, unknown_authorization: null });

const platformKubernetes = t.type({
  api_url: t.string,
  token_encrypted: t.string,
  ca_cert_encrypted: nullable(t.string),
  namespace: nullable(t.string),
  authorization_type: authorizationType,
});

const fields = {
  name: t.string,
  domain: nullable(t.string),
  enabled: t.boolean,
  managed: t.boolean,
  environment_scope: t.string,
  namespace_per_environment: t.boolean,
  management_project_id: nullable(t.number),
};

export const clusterEvents = defineEvents({
  ClusterAdded: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, id: t.number, ...fields, user_id: nullable(t.number), platform_kubernetes: platformKubernetes, created_at: t.string }),
  },
  ClusterUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, id: t.number, changed: t.array(t.string), updated_at: t.string }),
      t.partial({ ...fields, platform_kubernetes: t.partial({ api_url: t.string, token_encrypted: t.string, ca_cert_encrypted: nullable(t.string), namespace: nullable(t.string) }) }),
    ]),
  },
  ClusterRemoved: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
});

export type ClusterEvent = EventsOf<typeof clusterEvents>;
export type PlatformKubernetesData = t.TypeOf<typeof platformKubernetes>;
