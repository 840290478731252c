/** SCIM test helpers: a top-level group with SAML configured and a SCIM token, and a SCIM client for it. */
import { expect } from 'vitest';
import { directMembership, findUserByEmail, type State } from '@forgefold/core';
import type { TestServer } from '../support/server.js';

export const FINGERPRINT = '9a:3b:5c:7d:1e:2f:40:51:62:73:84:95:a6:b7:c8:d9:ea:fb:0c:1d';

export interface ScimGroup {
  readonly id: number;
  readonly path: string;
  /** The group's SCIM root as the set-up API returned it. */
  readonly url: string;
  readonly token: string;
}

export const setupScimGroup = async (server: TestServer, path = 'acme', provider: Record<string, unknown> = {}): Promise<ScimGroup> => {
  const group = await server.request('POST', '/api/v4/groups', { body: { name: path, path } });
  expect(group.status).toBe(201);
  const saml = await server.request('PUT', `/api/v4/groups/${group.body.id}/saml_provider`, {
    body: { enabled: true, sso_url: 'https://idp.example.com/app/sso/saml', certificate_fingerprint: FINGERPRINT, default_membership_role: 30, ...provider },
  });
  expect(saml.status).toBe(200);
  const token = await server.request('POST', `/api/v4/groups/${group.body.id}/scim_token`);
  expect(token.status).toBe(201);
  return { id: group.body.id, path, url: token.body.scim_api_url, token: token.body.scim_token };
};

export interface ScimResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly text: string;
}

export type ScimClient = (
  method: string,
  path: string,
  options?: { body?: unknown; raw?: string; token?: string | null; contentType?: string; headers?: Record<string, string> },
) => Promise<ScimResponse>;

/** Requests under the group's SCIM root, with the Bearer token and `application/scim+json` bodies. */
export const scimClient = (group: ScimGroup): ScimClient => async (method, path, options = {}) => {
  const token = options.token === undefined ? group.token : options.token;
  const payload = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const response = await fetch(`${group.url}${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(payload !== undefined ? { 'Content-Type': options.contentType ?? 'application/scim+json' } : {}),
      ...options.headers,
    },
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
};

/** The membership of the user with this e-mail in the group, from the server's projections. */
export const membershipOf = (state: State, groupId: number, email: string) => {
  const user = findUserByEmail(state.users, email);
  return user ? directMembership(state.members, 'Namespace', groupId, user.id) : undefined;
};

export const expectScimError = (response: ScimResponse, status: number, scimType?: string) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/scim+json');
  expect(response.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  expect(response.body.status).toBe(String(status));
  if (scimType) expect(response.body.scimType).toBe(scimType);
  else expect(response.body.scimType).toBeUndefined();
  expect(typeof response.body.detail).toBe('string');
};

export const user = (externalId: string, userName: string, email = `${userName}@example.com`, extra: Record<string, unknown> = {}) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  externalId,
  userName,
  emails: [{ primary: true, type: 'work', value: email }],
  name: { formatted: `${userName} Person`, givenName: userName, familyName: 'Person' },
  ...extra,
});
