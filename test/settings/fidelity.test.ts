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
      message: { external_authorization_service_url: ['must be a valid URL'] },
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

describe('application settings: EE parameter coercion', () => {
  it('searchengine_namespace_ids and searchengine_project_ids take comma lists (CommaSeparatedToIntegerArray)', async () => {
    const comma = await putForm('searchengine_limit_indexing=true&searchengine_namespace_ids=1,2&searchengine_project_ids=3');
    expect(comma).toMatchObject({ status: 200, body: { searchengine_namespace_ids: [1, 2], searchengine_project_ids: [3] } });
    const brackets = await putForm('searchengine_namespace_ids[]=4&searchengine_namespace_ids[]=5');
    expect(brackets).toMatchObject({ status: 200, body: { searchengine_namespace_ids: [4, 5] } });
    await putForm('searchengine_limit_indexing=false&searchengine_namespace_ids=&searchengine_project_ids=');
  });
});
