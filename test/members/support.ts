/** Helpers for membership end-to-end tests: users with tokens, groups and projects over the real API. */
import type { TestServer } from '../support/server.js';

export interface Person {
  readonly id: number;
  readonly username: string;
  readonly token: string;
}

export const createPerson = async (server: TestServer, username: string, extra: Record<string, unknown> = {}): Promise<Person> => {
  const created = await server.request('POST', '/api/v4/users', { body: { username, name: username.toUpperCase(), email: `${username}@example.com`, password: 'password123', skip_confirmation: true, ...extra } });
  if (created.status !== 201) throw new Error(`create user ${username}: ${created.status} ${created.text}`);
  const token = await server.request('POST', `/api/v4/users/${created.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
  if (token.status !== 201) throw new Error(`token ${username}: ${token.status} ${token.text}`);
  return { id: created.body.id, username, token: token.body.token };
};

export const createGroup = async (server: TestServer, owner: Person | null, name: string, parentId?: number, visibility = 'private'): Promise<{ id: number; full_path: string }> => {
  const r = await server.request('POST', '/api/v4/groups', { token: owner?.token ?? server.rootToken, body: { name, path: name.toLowerCase(), visibility, ...(parentId ? { parent_id: parentId } : {}) } });
  if (r.status !== 201) throw new Error(`create group ${name}: ${r.status} ${r.text}`);
  return r.body;
};

/** A project in `namespaceId`, of `visibility` when given (else the platform's default). */
export const createProject = async (server: TestServer, owner: Person | null, name: string, namespaceId: number, visibility?: string): Promise<{ id: number; path_with_namespace: string }> => {
  const r = await server.request('POST', '/api/v4/projects', { token: owner?.token ?? server.rootToken, body: { name, path: name.toLowerCase(), namespace_id: namespaceId, ...(visibility ? { visibility } : {}) } });
  if (r.status !== 201) throw new Error(`create project ${name}: ${r.status} ${r.text}`);
  return r.body;
};
