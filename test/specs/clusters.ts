/** Decider specs of the clusters module: add, update (changed fields named, secrets as ciphertext), remove. */
import { forbidden, notFound, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const LATER = '2026-01-02T00:00:00.000Z';
const root = userCreated(1, 'root', { admin: true });
const maint = userCreated(2, 'maint');
const dev = userCreated(3, 'dev');
const base: ForgefoldEvent[] = [root, maint, dev, projectCreated(1, 'app', 10), projectCreated(2, 'ops', 10), memberAdded(1, { project: 1 }, 2, 40), memberAdded(2, { project: 1 }, 3, 30)];

const settingsChanged = (field: string, old: unknown, value: unknown): ForgefoldEvent =>
  ({ type: 'SettingsChanged', data: { changes: [{ field, old, new: value }], actor_id: 1, at: AT } }) as ForgefoldEvent;

const sealed = (name: string) => ({ ciphertext: `v1:${name}`, blank: false });
const add = (extra: object = {}, platform: object = {}) =>
  ({ type: 'AddCluster', project_id: 1, name: 'prod', platform_kubernetes: { api_url: 'https://k8s.example.com', token: sealed('token'), namespace: 'app', ...platform }, ...extra }) as const;

const added: ForgefoldEvent = {
  type: 'ClusterAdded',
  data: {
    project_id: 1,
    id: 1,
    name: 'prod',
    domain: null,
    environment_scope: '*',
    management_project_id: null,
    enabled: true,
    managed: true,
    namespace_per_environment: true,
    user_id: 2,
    platform_kubernetes: { api_url: 'https://k8s.example.com', token_encrypted: 'v1:token', ca_cert_encrypted: null, namespace: 'app', authorization_type: 'rbac' },
    created_at: AT,
  },
};

export const clusterSpecs: Record<string, Spec> = {
  'a cluster is added with ciphertext only': { given: base, as: 2, when: add(), then: [added] },
  'developers add no cluster': { given: base, as: 3, when: add(), error: forbidden() },
  'one cluster per environment scope': { given: [...base, added], as: 2, when: add(), error: validation({ environment_scope: ['cannot add duplicated environment scope'] }) },
  'platform errors use dotted keys': {
    given: base,
    as: 2,
    when: add({}, { namespace: 'Bad_NS', api_url: 'http://localhost:6443' }),
    error: validation({
      'platform_kubernetes.api_url': ['is blocked: Requests to localhost are not allowed'],
      'platform_kubernetes.namespace': ["can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'"],
    }),
  },
  // UrlBlocker: `validate_local_network` (ipv4_private?, IPv6 site-local and unique local), then `validate_link_local`.
  'a private address is the local network': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'https://172.20.0.5:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to the local network are not allowed'] }),
  },
  'a link-local address is the link local network, not the local one': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'http://169.254.169.254/latest' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to the link local network are not allowed'] }),
  },
  'an IPv6 link-local address is the link local network': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'https://[fe80::1]:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to the link local network are not allowed'] }),
  },
  'an IPv6 site-local address is the local network': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'https://[fec0::1]:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to the local network are not allowed'] }),
  },
  // `validate_localhost` knows 0.0.0.0, :: and the machine's own addresses (the loopback interface's 127.0.0.1 and ::1);
  // the rest of 127.0.0.0/8 is `validate_loopback`'s. A numeric host is read as `getaddrinfo` reads it.
  'another loopback address is refused as a loopback address': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'https://127.0.0.2:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to loopback addresses are not allowed'] }),
  },
  'a short numeric host is the address getaddrinfo reads (127.1 is 127.0.0.1)': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'https://127.1:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to localhost are not allowed'] }),
  },
  'an IPv4-mapped IPv6 address is read as its IPv4 address': {
    given: base,
    as: 2,
    when: add({}, { api_url: 'https://[::ffff:10.1.2.3]:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to the local network are not allowed'] }),
  },
  // `public_url` lets both through while `ApplicationSetting.current` allows local requests from web hooks and services
  // (`AddressableUrlValidator.allow_setting_local_requests?`); the system hooks' setting is another one.
  'local addresses pass while the instance allows local requests from web hooks and services': {
    given: [...base, settingsChanged('allow_local_requests_from_web_hooks_and_services', false, true)],
    as: 2,
    when: add({}, { api_url: 'https://10.0.0.5:6443' }),
    then: [{ ...added, data: { ...added.data, platform_kubernetes: { ...added.data.platform_kubernetes, api_url: 'https://10.0.0.5:6443' } } } as ForgefoldEvent],
  },
  // UrlBlocker reads `outbound_local_requests_whitelist` before the local checks: an address in a listed range, or a
  // listed host, with the listed port if any (the URL's, else its scheme's default).
  'an address of the allowlist\'s range passes': {
    given: [...base, settingsChanged('outbound_local_requests_whitelist', [], ['10.0.0.0/8', 'localhost:6443'])],
    as: 2,
    when: add({}, { api_url: 'https://10.0.0.5:6443' }),
    then: [{ ...added, data: { ...added.data, platform_kubernetes: { ...added.data.platform_kubernetes, api_url: 'https://10.0.0.5:6443' } } } as ForgefoldEvent],
  },
  'a listed host with its port passes': {
    given: [...base, settingsChanged('outbound_local_requests_whitelist', [], ['localhost:6443'])],
    as: 2,
    when: add({}, { api_url: 'https://LOCALHOST:6443' }),
    then: [{ ...added, data: { ...added.data, platform_kubernetes: { ...added.data.platform_kubernetes, api_url: 'https://LOCALHOST:6443' } } } as ForgefoldEvent],
  },
  'a listed address on another port is still refused': {
    given: [...base, settingsChanged('outbound_local_requests_whitelist', [], ['10.0.0.5:443', '[::1]:443'])],
    as: 2,
    when: add({}, { api_url: 'https://10.0.0.5:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to the local network are not allowed'] }),
  },
  'the allowlist is read for the address the host is (a mapped IPv6 one as IPv4, the default port)': {
    given: [...base, settingsChanged('outbound_local_requests_whitelist', [], ['127.0.0.2:443'])],
    as: 2,
    when: add({}, { api_url: 'https://[::ffff:7f00:2]' }),
    then: [{ ...added, data: { ...added.data, platform_kubernetes: { ...added.data.platform_kubernetes, api_url: 'https://[::ffff:7f00:2]' } } } as ForgefoldEvent],
  },
  'the system hooks\' setting lets no cluster through': {
    given: [...base, settingsChanged('allow_local_requests_from_system_hooks', true, true)],
    as: 2,
    when: add({}, { api_url: 'https://127.0.0.1:6443' }),
    error: validation({ 'platform_kubernetes.api_url': ['is blocked: Requests to localhost are not allowed'] }),
  },
  'a management project needs admin_pipeline there': {
    given: base,
    as: 2,
    when: add({ management_project_id: 2 }),
    error: validation({ management_project_id: ["Project does not exist or you don't have permission to perform this action"] }),
  },
  'an update names what changed, the token as a field name only': {
    given: [...base, added],
    as: 2,
    at: LATER,
    when: { type: 'UpdateCluster', project_id: 1, cluster_id: 1, name: 'prod', enabled: false, platform_kubernetes: { token: sealed('new') } },
    then: [{ type: 'ClusterUpdated', data: { project_id: 1, id: 1, changed: ['enabled', 'platform_kubernetes.token'], enabled: false, platform_kubernetes: { token_encrypted: 'v1:new' }, updated_at: LATER } }],
  },
  'an update that changes nothing records nothing': { given: [...base, added], as: 2, when: { type: 'UpdateCluster', project_id: 1, cluster_id: 1, name: 'prod' }, then: [] },
  'a cluster of another project is "404 Not found"': { given: [...base, added], as: 1, when: { type: 'RemoveCluster', project_id: 2, cluster_id: 1 }, error: notFound(undefined, '404 Not found') },
  'a cluster is removed': { given: [...base, added], as: 2, when: { type: 'RemoveCluster', project_id: 1, cluster_id: 1 }, then: [{ type: 'ClusterRemoved', data: { project_id: 1, id: 1 } }] },
};
