/** Helpers for the pipeline tests: users with tokens and memberships on the e2e server. */
import type { TestServer } from '../support/server.js';

export const api = (server: TestServer, method: string, path: string, body?: unknown, token?: string | null) =>
  server.request(method, `/api/v4${path}`, { ...(token !== undefined ? { token } : {}), ...(body !== undefined ? { body } : {}) });

/** A user with an `api` token, optionally a member of a project at a level. */
export const member = async (server: TestServer, username: string, project?: { id: number; level: number }): Promise<{ id: number; token: string }> => {
  const user = await api(server, 'POST', '/users', { username, name: username.toUpperCase(), email: `${username}@example.com`, password: 'password-123', skip_confirmation: true });
  if (user.status !== 201) throw new Error(`user ${username}: ${JSON.stringify(user.body)}`);
  const token = await api(server, 'POST', `/users/${user.body.id}/personal_access_tokens`, { name: 'test', scopes: ['api'] });
  if (project) await api(server, 'POST', `/projects/${project.id}/members`, { user_id: user.body.id, access_level: project.level });
  return { id: user.body.id, token: token.body.token };
};
