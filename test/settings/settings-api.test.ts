/**
 * `GET/PUT /application/settings` as the platform answers (reference/admin.md §2): administrators only, the
 * "requires" groups and their texts, legacy names, model validations, secrets hidden, a fresh instance's defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { startServer, type TestServer } from '../support/server.js';
import { createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
});
afterAll(async () => {
  await server.close();
});

const put = (body: Record<string, unknown>, token?: string) => server.request('PUT', '/api/v4/application/settings', { body, ...(token ? { token } : {}) });

/** Expects a 400 that changes nothing. */
const refused = async (body: Record<string, unknown>, expected: unknown) => {
  const before = server.app.position;
  const answer = await put(body);
  expect(answer).toMatchObject({ status: 400, body: expected });
  expect(server.app.position).toBe(before);
};

describe('application settings: reading', () => {
  it('a fresh instance answers the defaults, with secrets hidden and aliases shown', async () => {
    const { status, body } = await server.request('GET', '/api/v4/application/settings');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: 1,
      default_projects_limit: 100000,
      default_branch_protection: 2,
      default_project_creation: 2,
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      restricted_visibility_levels: [],
      signup_enabled: true,
      password_authentication_enabled_for_web: true,
      password_authentication_enabled: true,
      signin_enabled: true,
      require_admin_approval_after_user_signup: true,
      max_attachment_size: 10,
      snippet_size_limit: 52428800,
      housekeeping_enabled: true,
      throttle_authenticated_api_enabled: false,
      throttle_authenticated_api_requests_per_period: 7200,
      repository_storages_weighted: { default: 100 },
      deletion_adjourned_period: 7,
      geo_node_allowed_ips: '0.0.0.0/0, ::/0',
      maintenance_mode: false,
      polling_interval_multiplier: '1.0',
      asset_proxy_whitelist: ['localhost'],
    });
    expect(body).not.toHaveProperty('asset_proxy_secret_key');
    expect(body).not.toHaveProperty('cloudk8s_secret_access_key');
    expect(body).not.toHaveProperty('performance_bar_allowed_group_path');
    expect(body).not.toHaveProperty('performance_bar_enabled');
    expect(body).not.toHaveProperty('admin_notification_email');
  });

  it('administrators only: 401 without credentials, 403 for others, before any parameter check', async () => {
    expect(await server.request('GET', '/api/v4/application/settings', { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.request('GET', '/api/v4/application/settings', { token: alice.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await put({}, alice.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('application settings: PUT', () => {
  it('answers the full entity and records exactly what changed, by whom', async () => {
    const answer = await put({ default_projects_limit: 42, signup_enabled: false, asset_proxy_secret_key: 's3cret', after_sign_up_text: 'hi' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 1, default_projects_limit: 42, signup_enabled: false, after_sign_up_text: 'hi', max_attachment_size: 10 });
    expect(answer.body).not.toHaveProperty('asset_proxy_secret_key');
    const events = await server.app.events.readAll(0, Number.MAX_SAFE_INTEGER);
    const last = events[events.length - 1]!;
    expect(last.type).toBe('SettingsChanged');
    expect(last.data).toMatchObject({
      changes: [
        { field: 'after_sign_up_text', old: null, new: 'hi' },
        { field: 'asset_proxy_secret_key', old: null, new: '[FILTERED]' },
        { field: 'default_projects_limit', old: 100000, new: 42 },
        { field: 'signup_enabled', old: true, new: false },
      ],
      actor_id: 1,
    });
    expect(JSON.stringify(events)).not.toContain('s3cret');
    // The settings audit: who changed what, when.
    const audit = await server.request('GET', '/api/v4/audit/settings_events?field=default_projects_limit');
    expect(audit.status).toBe(200);
    expect(audit.body).toEqual([{ position: expect.any(Number), at: '2026-05-01T00:00:00.000Z', changes: [{ field: 'default_projects_limit', old: 100000, new: 42 }], actor_id: 1, sudo_from_id: null, origin: 'api' }]);
    expect((await server.request('GET', '/api/v4/audit/settings_events', { token: alice.token })).status).toBe(403);
    // The same values again change nothing and record nothing.
    const position = server.app.position;
    expect((await put({ default_projects_limit: 42 })).status).toBe(200);
    expect(server.app.position).toBe(position);
    await put({ default_projects_limit: 100000, signup_enabled: true, after_sign_up_text: '' });
  });

  it('at least one parameter', async () => {
    const answer = await put({ unknown_thing: 1 });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/are missing, at least one parameter must be provided$/);
  });

  it('the "requires" groups, only when the trigger is truthy', async () => {
    await refused({ spamfilter_enabled: true }, { error: 'spamfilter_api_key is missing' });
    await refused({ cloudk8s_integration_enabled: true }, { error: 'cloudk8s_account_id is missing, cloudk8s_access_key_id is missing, cloudk8s_secret_access_key is missing' });
    await refused({ housekeeping_enabled: true }, {
      error: 'housekeeping_bitmaps_enabled is missing, housekeeping_full_repack_period is missing, housekeeping_gc_period is missing, housekeeping_incremental_repack_period is missing',
    });
    await refused({ captcha_enabled: true }, { error: 'captcha_site_key is missing, captcha_private_key is missing' });
    await refused({ umldiagram_enabled: true }, { error: 'umldiagram_url is missing' });
    await refused({ codeintel_enabled: 'true' }, { error: 'codeintel_url is missing' });
    await refused({ mailer_events_enabled: true }, { error: 'mailer_signing_key is missing' });
    await refused({ tracker_enabled: true }, { error: 'tracker_collector_hostname is missing' });
    expect((await put({ spamfilter_enabled: false })).status).toBe(200);
    // An empty string satisfies Grape; the model refuses it.
    await refused({ spamfilter_enabled: true, spamfilter_api_key: '' }, { message: { spamfilter_api_key: ["can't be blank"] } });
  });

  it('types and value lists', async () => {
    await refused({ default_projects_limit: 'abc' }, { error: 'default_projects_limit is invalid' });
    await refused({ default_project_visibility: '10' }, { error: 'default_project_visibility does not have a valid value' });
    await refused({ default_branch_protection: 4 }, { error: 'default_branch_protection does not have a valid value' });
    await refused({ rsa_key_restriction: 1000 }, { error: 'rsa_key_restriction does not have a valid value' });
    await refused({ repository_storages_weighted: 'x' }, { error: 'repository_storages_weighted is invalid' });
    await refused({ import_sources: 'git,nope' }, { error: 'import_sources does not have a valid value' });
  });

  it('legacy names', async () => {
    await refused({ password_authentication_enabled_for_web: true, signin_enabled: true }, { error: 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive' });
    const signin = await put({ signin_enabled: false });
    expect(signin.body).toMatchObject({ password_authentication_enabled_for_web: false, password_authentication_enabled: false, signin_enabled: false });
    await put({ password_authentication_enabled: true });
    const email = await put({ admin_notification_email: 'old@example.com', abuse_notification_email: 'new@example.com' });
    expect(email.body.abuse_notification_email).toBe('old@example.com');
    const proxy = await put({ asset_proxy_whitelist: 'example.com, *.example.com' });
    expect(proxy.body).toMatchObject({ asset_proxy_allowlist: ['example.com', '*.example.com', 'localhost'], asset_proxy_whitelist: ['example.com', '*.example.com', 'localhost'] });
    const hooks = await put({ allow_local_requests_from_hooks_and_services: true });
    expect(hooks.body).toMatchObject({ allow_local_requests_from_web_hooks_and_services: true, allow_local_requests_from_hooks_and_services: true });
    const hashed = await put({ hashed_storage_enabled: false });
    expect(hashed).toMatchObject({ status: 200, body: { hashed_storage_enabled: true } });
    const levels = await put({ restricted_visibility_levels: 'internal,20,foo' });
    expect(levels.body.restricted_visibility_levels).toEqual(['internal', 'public', 'private']);
    await put({ restricted_visibility_levels: '' });
    const raw = await put({ domain_denylist_raw: 'a.com; b.com\nb.com  c.com' });
    expect(raw.body).toMatchObject({ domain_denylist: ['a.com', 'b.com', 'c.com'], domain_denylist_raw: 'a.com\nb.com\nc.com' });
    const weighted = await put({ repository_storages_weighted: { default: '75' } });
    expect(weighted.body.repository_storages_weighted).toEqual({ default: 75 });
    await refused({ performance_bar_allowed_group_id: 'nope' }, { message: { performance_bar_allowed_group_id: ['not found'] } });
  });

  it('model validations', async () => {
    await refused({ max_attachment_size: 0 }, { message: { max_attachment_size: ['must be greater than 0'] } });
    await refused({ snippet_size_limit: 0 }, { message: { snippet_size_limit: ['must be greater than 0'] } });
    await refused({ deletion_adjourned_period: 91 }, { message: { deletion_adjourned_period: ['must be less than or equal to 90'] } });
    await refused({ personal_access_token_prefix: 'a b' }, { message: { personal_access_token_prefix: ["can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'"] } });
    await refused({ repository_storages_weighted: { foo: 10 } }, { message: { repository_storages_weighted: ["can't include: foo"] } });
    await refused({ enforce_terms: true }, { message: { base: ['You need to set terms to be enforced'] } });
    await refused({ home_page_url: 'ftp://x' }, { message: { home_page_url: ['is blocked: Only allowed schemes are http, https'] } });
    await refused({ domain_denylist_enabled: true, domain_denylist: '' }, { message: { domain_denylist: ['Domain denylist cannot be empty if denylist is enabled.'] } });
    expect((await put({ default_projects_limit: -5 })).body.default_projects_limit).toBe(-5);
    await put({ default_projects_limit: 100000 });
  });

  it('with @gitbeaker/rest ApplicationSettings', async () => {
    const api = new Gitlab({ host: server.baseUrl, token: server.rootToken });
    const shown = (await api.ApplicationSettings.show()) as Record<string, unknown>;
    expect(shown['id']).toBe(1);
    const edited = (await api.ApplicationSettings.edit({ afterSignUpText: 'Welcome', defaultProjectsLimit: 7 } as never)) as Record<string, unknown>;
    expect(edited).toMatchObject({ after_sign_up_text: 'Welcome', default_projects_limit: 7 });
    await api.ApplicationSettings.edit({ afterSignUpText: '', defaultProjectsLimit: 100000 } as never);
  });
});
