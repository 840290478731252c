/**
 * Fidelity audit of `PUT /application/settings` (issue 16, branch `fid-admin`): raw requests as curl, python-gitlab
 * or a terraform-style script send them, against the platform's 14.x model (app/models/application_setting.rb) and
 * EE parameters (ee/lib/ee/api/helpers/settings_helpers.rb). Each case changed an answer; see docs/decisions.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  // The token's first use of the day is recorded (activity): done here, so that refusals below record nothing.
  await server.request('GET', '/api/v4/application/settings');
});
afterAll(async () => {
  await server.close();
});

const S = '/api/v4/application/settings';

/** Throwaway test credentials (a self-signed P-256 certificate, its key, the key encrypted with "secret", another key). */
const CERT = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBiDCCAS+gAwIBAgIUfSBJLoK03ZXdq13hJa6UZUZqyN0wCgYIKoZIzj0EAwIw',
  'GTEXMBUGA1UEAwwOZm9yZ2Vmb2xkLXRlc3QwIBcNMjYxMTI3MDIwNDMyWhgPMjEy',
  'NjExMDMwMjA0MzJaMBkxFzAVBgNVBAMMDmZvcmdlZm9sZC10ZXN0MFkwEwYHKoZI',
  'zj0CAQYIKoZIzj0DAQcDQgAEHPSlUwJ5OcWfrBmKxCqQPnOb2vAD1jOp68naLXWl',
  'Jfr2MbjtJpsK29CYadCFXfVqJ3/xDSG0xxqww3fHuAHEp6NTMFEwHQYDVR0OBBYE',
  'FBHfUpVT9YV620y392ZYQh+ENMbGMB8GA1UdIwQYMBaAFBHfUpVT9YV620y392ZY',
  'Qh+ENMbGMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgeicJG4mA',
  'saomkNxQYusf/Zx5Eco+WuspiDZ3yBRtbyICIDCNGQlUiWPyXrKazGi0WzVG8S/f',
  'izBpqPIl1qR2Infi',
  '-----END CERTIFICATE-----'
].join('\n');
const KEY = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgs7Ws6NRIov3bU6/0',
  'cJQZWZp3JLVR0XtJwumvFpH1KcmhRANCAAQc9KVTAnk5xZ+sGYrEKpA+c5va8APW',
  'M6nrydotdaUl+vYxuO0mmwrb0Jhp0IVd9Wonf/ENIbTHGrDDd8e4AcSn',
  '-----END PRIVATE KEY-----'
].join('\n');
const KEY_ENCRYPTED = [
  '-----BEGIN ENCRYPTED PRIVATE KEY-----',
  'MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjBGCCf5eew0gICCAAw',
  'DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEMZF+vpiWHJlJ2iLMQeKk/YEgZCT',
  'gK5Y3drr2VGVfIdI/yXiduiQcGax5UIjyBaPGH4YlKNcJOyKOFr7jARvfTaUAXVL',
  '+/4U5xzkz9FYWGXtinCnP0iX17opPc7odOdmUtIoupCjaAhKv0CT3Dk/bLwe482r',
  'DyP7htX5W4EoKoYAVYPgj5PyWGssaZbVLuYWuekM6GeirPbTAsSp0m8hpBodGzo=',
  '-----END ENCRYPTED PRIVATE KEY-----'
].join('\n');
const OTHER_KEY = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxrh4OYAl9bQjw4T+',
  'F6AjPpTopckY3ctZupqZ7LcMMomhRANCAASqJgIM8vN4E4tQ/e7QKCBjxrhwD7ui',
  'jSaASgP4dp/TnuhCY0MCzK6dvNIB2F7pH0YpMDw9tOZtY5xwu3dmB3Bg',
  '-----END PRIVATE KEY-----'
].join('\n');

/** A form-encoded PUT, as `curl --data` sends it. */
const putForm = async (form: string) => {
  const response = await fetch(`${server.baseUrl}${S}`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': server.rootToken, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** Expects a 400 with exactly this body, and nothing recorded. */
const refused = async (form: string, expected: unknown) => {
  const before = server.app.position;
  expect(await putForm(form)).toEqual({ status: 400, body: expected });
  expect(server.app.position).toBe(before);
};

describe('application settings: a fresh instance', () => {
  it('throttles protected paths at 10 requests per 60 seconds (the columns\' defaults: the defaults hash names other keys)', async () => {
    const { body } = await server.request('GET', S);
    expect(body).toMatchObject({ throttle_protected_paths_enabled: false, throttle_protected_paths_requests_per_period: 10, throttle_protected_paths_period_in_seconds: 60 });
  });
});

describe('application settings: model validations the platform has', () => {
  it('polling_interval_multiplier: present and at least 0', async () => {
    await refused('polling_interval_multiplier=-1', { message: { polling_interval_multiplier: ['must be greater than or equal to 0'] } });
    await refused('polling_interval_multiplier=', { message: { polling_interval_multiplier: ["can't be blank", 'is not a number'] } });
    const zero = await putForm('polling_interval_multiplier=0');
    expect(zero).toMatchObject({ status: 200, body: { polling_interval_multiplier: '0.0' } });
    await putForm('polling_interval_multiplier=1');
  });

  it('default_artifacts_expire_in: present', async () => {
    await refused('default_artifacts_expire_in=', { message: { default_artifacts_expire_in: ["can't be blank"] } });
    expect(await putForm('default_artifacts_expire_in=7 days')).toMatchObject({ status: 200, body: { default_artifacts_expire_in: '7 days' } });
    await putForm('default_artifacts_expire_in=30 days');
  });

  it('external_authorization_service_url is checked only while the service is enabled', async () => {
    expect(await putForm('external_authorization_service_url=not a url')).toMatchObject({ status: 200, body: { external_authorization_service_url: 'not a url' } });
    await refused('external_authorization_service_enabled=true&external_authorization_service_default_label=L', {
      // addressable_url: a value without a scheme goes to UrlBlocker, whose reason follows "is blocked: ".
      message: { external_authorization_service_url: ['is blocked: Only allowed schemes are http, https'] },
    });
    await putForm('external_authorization_service_url=');
  });

  it('spam_check_api_key: present while the spam check endpoint is enabled', async () => {
    await refused('spam_check_endpoint_enabled=true&spam_check_endpoint_url=grpc://spam.example.com&spam_check_api_key=', { message: { spam_check_api_key: ["can't be blank"] } });
  });

  it('rate_limiting_response_text: at most 255 characters', async () => {
    await refused(`rate_limiting_response_text=${'a'.repeat(256)}`, { message: { rate_limiting_response_text: ['is too long (maximum is 255 characters)'] } });
  });

  it('unique IP limits: both present and in range while enabled', async () => {
    await refused('unique_ips_limit_enabled=true&unique_ips_limit_time_window=-1&unique_ips_limit_per_user=', {
      message: { unique_ips_limit_per_user: ["can't be blank", 'is not a number'], unique_ips_limit_time_window: ['must be greater than or equal to 0'] },
    });
  });

  it('cloudk8s (EKS): the access key pair may be left blank (an instance role), the account id may not', async () => {
    const role = await putForm('cloudk8s_integration_enabled=true&cloudk8s_account_id=123456789012&cloudk8s_access_key_id=&cloudk8s_secret_access_key=');
    expect(role).toMatchObject({ status: 200, body: { cloudk8s_integration_enabled: true, cloudk8s_account_id: '123456789012', cloudk8s_access_key_id: '' } });
    expect(role.body).not.toHaveProperty('cloudk8s_secret_access_key');
    await refused('cloudk8s_integration_enabled=true&cloudk8s_account_id=12&cloudk8s_access_key_id=AKIA0123456789ABCDEF&cloudk8s_secret_access_key=', {
      message: { cloudk8s_account_id: ['must be a 12-digit number'], cloudk8s_secret_access_key: ["can't be blank"] },
    });
    await putForm('cloudk8s_integration_enabled=false');
  });
});

describe('application settings: storages and the diagram renderer', () => {
  it('repository_storages: present, and only configured storages (check_repository_storages)', async () => {
    await refused('repository_storages=default,foo', { message: { repository_storages: ["can't include: foo"] } });
    await refused('repository_storages=', { message: { repository_storages: ["can't be blank"] } });
    expect(await putForm('repository_storages[]=default')).toMatchObject({ status: 200, body: { repository_storages: ['default'] } });
  });

  it('diagramrender_url (Kroki) is checked while the renderer is enabled (validate_kroki_url)', async () => {
    await refused('diagramrender_enabled=true&diagramrender_url=ftp://kroki.example.com', { message: { diagramrender_url: ['is not valid. Only allowed schemes are http, https'] } });
    expect(await putForm('diagramrender_url=ftp://kroki.example.com')).toMatchObject({ status: 200, body: { diagramrender_enabled: false } });
    expect(await putForm('diagramrender_enabled=true&diagramrender_url=https://kroki.example.com')).toMatchObject({ status: 200, body: { diagramrender_enabled: true } });
    await putForm('diagramrender_enabled=false&diagramrender_url=');
  });
});

describe('application settings: EE parameter coercion', () => {
  it('searchengine_namespace_ids and searchengine_project_ids take comma lists (CommaSeparatedToIntegerArray)', async () => {
    const comma = await putForm('searchengine_limit_indexing=true&searchengine_namespace_ids=1,2&searchengine_project_ids=3');
    expect(comma).toMatchObject({ status: 200, body: { searchengine_namespace_ids: [1, 2], searchengine_project_ids: [3] } });
    const brackets = await putForm('searchengine_namespace_ids[]=4&searchengine_namespace_ids[]=5');
    expect(brackets).toMatchObject({ status: 200, body: { searchengine_namespace_ids: [4, 5] } });
    await putForm('searchengine_limit_indexing=false&searchengine_namespace_ids=&searchengine_project_ids=');
  });
  it('searchengine_url: the setter strips each URL and its trailing slashes; the model checks the schemes', async () => {
    // `elasticsearch_url=`: `url.strip.gsub(%r{/*\z}, '')`, joined by commas (empty ones at the end are not read back).
    const set = await putForm(`searchengine_url=${encodeURIComponent(' http://es1.example.com:9200/ ,https://es2.example.com// , /')}`);
    expect(set).toMatchObject({ status: 200, body: { searchengine_url: ['http://es1.example.com:9200', 'https://es2.example.com'] } });
    await refused(`searchengine_url=${encodeURIComponent('http://es1.example.com,es2.example.com')}`, { message: { searchengine_url: ['only supports valid HTTP(S) URLs.'] } });
    await refused('searchengine_indexing=true&searchengine_url=', { message: { searchengine_url: ["can't be blank when indexing is enabled"] } });
    expect(await putForm('searchengine_url=http://localhost:9200')).toMatchObject({ status: 200, body: { searchengine_url: ['http://localhost:9200'] } });
  });
  it('searchengine_url is a String parameter (a comma-separated list in one string): an array or a hash is "is invalid"', async () => {
    const putJson = async (body: unknown) => {
      const before = server.app.position;
      const response = await server.request('PUT', S, { body });
      if (response.status !== 200) expect(server.app.position).toBe(before);
      return { status: response.status, body: response.body };
    };
    for (const body of [{ searchengine_url: ['http://es1.example.com'] }, { searchengine_url: { a: 'http://es1.example.com' } }, { searchengine_indexing: true, searchengine_url: ['http://es1.example.com'] }]) {
      expect(await putJson(body)).toEqual({ status: 400, body: { error: 'searchengine_url is invalid' } });
    }
    await refused('searchengine_url[]=http://es1.example.com', { error: 'searchengine_url is invalid' });
    expect(await putJson({ searchengine_url: 'http://es1.example.com/, https://es2.example.com' })).toMatchObject({ status: 200, body: { searchengine_url: ['http://es1.example.com', 'https://es2.example.com'] } });
    expect(await putJson({ searchengine_url: 'http://localhost:9200' })).toMatchObject({ status: 200, body: { searchengine_url: ['http://localhost:9200'] } });
  });
  it('dashboard_url: literal local addresses are refused while allow_local_requests_from_system_hooks is off (as stored before the request)', async () => {
    const hint = 'Please check your Grafana URL setting in Admin Area > Settings > Metrics and profiling > Metrics - Grafana';
    // On (the default): any address.
    expect(await putForm(`dashboard_url=${encodeURIComponent('http://127.0.0.1:3000')}`)).toMatchObject({ status: 200, body: { dashboard_url: 'http://127.0.0.1:3000' } });
    // Turned off in the same request: the check reads the setting as stored, still on.
    expect(await putForm(`allow_local_requests_from_system_hooks=false&dashboard_url=${encodeURIComponent('http://10.0.0.7')}`)).toMatchObject({ status: 200, body: { dashboard_url: 'http://10.0.0.7' } });
    for (const [url, reason] of [
      ['http://127.0.0.1:3000', 'Requests to localhost are not allowed'],
      ['http://localhost:3000', 'Requests to localhost are not allowed'],
      ['http://[::1]:3000', 'Requests to localhost are not allowed'],
      ['http://0.0.0.0', 'Requests to localhost are not allowed'],
      ['http://127.1', 'Requests to localhost are not allowed'],
      ['http://127.0.0.2', 'Requests to loopback addresses are not allowed'],
      ['http://10.0.0.7', 'Requests to the local network are not allowed'],
      ['http://[::ffff:192.168.1.5]', 'Requests to the local network are not allowed'],
      ['http://[fd00::5]', 'Requests to the local network are not allowed'],
      ['http://169.254.169.254', 'Requests to the link local network are not allowed'],
    ]) {
      await refused(`dashboard_url=${encodeURIComponent(url!)}`, { message: { dashboard_url: [`is blocked: ${reason}. ${hint}`] } });
    }
    // A name is not resolved (only `localhost` is known to be local); relative URLs are not checked.
    expect(await putForm(`dashboard_url=${encodeURIComponent('https://grafana.internal.example')}`)).toMatchObject({ status: 200 });
    expect(await putForm('dashboard_url=/-/grafana')).toMatchObject({ status: 200 });
    // The allowlist (`outbound_local_requests_whitelist`, as stored) is read first: a listed address or range passes.
    expect(await putForm(`outbound_local_requests_allowlist_raw=${encodeURIComponent('127.0.0.1:3000, 10.0.0.0/8')}`)).toMatchObject({ status: 200 });
    expect(await putForm(`dashboard_url=${encodeURIComponent('http://127.0.0.1:3000')}`)).toMatchObject({ status: 200, body: { dashboard_url: 'http://127.0.0.1:3000' } });
    expect(await putForm(`dashboard_url=${encodeURIComponent('http://10.1.2.3')}`)).toMatchObject({ status: 200, body: { dashboard_url: 'http://10.1.2.3' } });
    await refused(`dashboard_url=${encodeURIComponent('http://127.0.0.1:3001')}`, { message: { dashboard_url: [`is blocked: Requests to localhost are not allowed. ${hint}`] } });
    // Emptied, the list still lets this request through (as stored); the next save checks the URL against none.
    expect(await putForm('outbound_local_requests_allowlist_raw=')).toMatchObject({ status: 200 });
    await refused('after_sign_up_text=hello', { message: { dashboard_url: [`is blocked: Requests to the local network are not allowed. ${hint}`] } });
    expect(await putForm(`dashboard_url=${encodeURIComponent('https://grafana.example.com')}`)).toMatchObject({ status: 200 });
    expect(await putForm('allow_local_requests_from_system_hooks=true')).toMatchObject({ status: 200 });
    expect(await putForm(`dashboard_url=${encodeURIComponent('http://169.254.169.254')}`)).toMatchObject({ status: 200 });
    expect(await putForm('dashboard_url=/-/grafana')).toMatchObject({ status: 200, body: { dashboard_url: '/-/grafana' } });
  });
  it('dashboard_url (Grafana): relative or http(s); an absolute one is checked as a system hook URL', async () => {
    const hint = 'Please check your Grafana URL setting in Admin Area > Settings > Metrics and profiling > Metrics - Grafana';
    await refused('dashboard_url=ftp://grafana.example.com', { message: { dashboard_url: [`is blocked: Only allowed schemes are http, https. ${hint}`] } });
    await refused(`dashboard_url=${encodeURIComponent('http://exa mple.com')}`, { message: { dashboard_url: [`must be a valid relative or absolute URL. ${hint}`] } });
    expect(await putForm('dashboard_url=https://grafana.example.com')).toMatchObject({ status: 200, body: { dashboard_url: 'https://grafana.example.com' } });
    expect(await putForm('dashboard_url=/-/grafana')).toMatchObject({ status: 200, body: { dashboard_url: '/-/grafana' } });
  });
});

describe('application settings: the external authorization client certificate', () => {
  it('is checked with its key and passphrase (X509CertificateCredentialsValidator)', async () => {
    const json = (body: Record<string, unknown>) => server.request('PUT', S, { body });
    const refusedJson = async (body: Record<string, unknown>, expected: unknown) => {
      const before = server.app.position;
      expect(await json(body)).toMatchObject({ status: 400, body: expected });
      expect(server.app.position).toBe(before);
    };
    await refusedJson({ external_auth_client_cert: 'garbage', external_auth_client_key: 'garbage' }, {
      message: { external_auth_client_cert: ['is not a valid X509 certificate.'], external_auth_client_key: ['could not read private key, is the passphrase correct?'] },
    });
    await refusedJson({ external_auth_client_cert: CERT }, {
      message: { external_auth_client_key: ["can't be blank", 'could not read private key, is the passphrase correct?'] },
    });
    await refusedJson({ external_auth_client_cert: CERT, external_auth_client_key: OTHER_KEY }, { message: { external_auth_client_key: ['private key does not match certificate.'] } });
    await refusedJson({ external_auth_client_cert: CERT, external_auth_client_key: KEY_ENCRYPTED, external_auth_client_key_pass: 'wrong' }, {
      message: { external_auth_client_key: ['could not read private key, is the passphrase correct?'] },
    });
    expect(await json({ external_auth_client_cert: CERT, external_auth_client_key: KEY_ENCRYPTED, external_auth_client_key_pass: 'secret' })).toMatchObject({ status: 200, body: { external_auth_client_cert: CERT } });
    expect(await json({ external_auth_client_key: KEY, external_auth_client_key_pass: '' })).toMatchObject({ status: 200, body: { external_auth_client_key: KEY } });
    expect((await json({ external_auth_client_cert: '', external_auth_client_key: '' })).status).toBe(200);
  });
});
