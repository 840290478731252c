/**
 * Settings that govern git over HTTP, with the real git client: `password_authentication_enabled_for_git` (a
 * password is refused with the platform's hint, tokens still work) and maintenance mode (clone works, push is
 * refused with the platform's message). Each is restored afterwards.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, clientEnv } from '../git/support.js';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let work: string;
let project: { id: number; path_with_namespace: string };
let dev: { id: number; token: string };

const env = () => clientEnv(work);
const url = (user: string, secret: string) => {
  const { host } = new URL(server.url);
  return `http://${encodeURIComponent(user)}:${encodeURIComponent(secret)}@${host}/${project.path_with_namespace}.git`;
};
const settings = async (body: Record<string, unknown>) => expect((await server.call('PUT', '/application/settings', body)).status).toBe(200);

beforeAll(async () => {
  dataDir = newDataDir();
  work = mkdtempSync(join(tmpdir(), 'forgefold-client-'));
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Gated', initialize_with_readme: true })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
  removeDir(work);
});

describe('git over HTTP under the settings', () => {
  it('password_authentication_enabled_for_git: off refuses passwords with the token hint; tokens still work', async () => {
    expect((await client(work, ['ls-remote', url('dev', 'password-123')], env())).code).toBe(0);
    await settings({ password_authentication_enabled_for_git: false });
    try {
      const refused = await client(work, ['ls-remote', url('dev', 'password-123')], env());
      expect(refused.code).not.toBe(0);
      const raw = await fetch(`${server.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, {
        headers: { Authorization: `Basic ${Buffer.from('dev:password-123').toString('base64')}` },
      });
      expect(raw.status).toBe(401);
      expect(await raw.text()).toBe(
        `HTTP Basic: Access denied\nYou must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP.\nYou can generate one at ${server.url}/-/profile/personal_access_tokens`,
      );
      expect((await client(work, ['ls-remote', url('dev', dev.token)], env())).code).toBe(0);
    } finally {
      await settings({ password_authentication_enabled_for_git: true });
    }
    expect((await client(work, ['ls-remote', url('dev', 'password-123')], env())).code).toBe(0);
  });

  it('maintenance mode: clones work, pushes are refused with the platform message', async () => {
    const clone = await client(work, ['clone', '--quiet', url('dev', dev.token), 'repo'], env());
    expect(clone.code, clone.stderr).toBe(0);
    const repo = join(work, 'repo');
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'While read-only'], env());
    await settings({ maintenance_mode: true });
    try {
      const push = await client(repo, ['push', '-q', 'origin', 'HEAD:topic'], env());
      expect(push.code).not.toBe(0);
      expect(push.stderr).toContain('Git push is not allowed because this GitLab instance is currently in (read-only) maintenance mode.');
      expect((await client(work, ['ls-remote', url('dev', dev.token)], env())).code).toBe(0);
    } finally {
      await settings({ maintenance_mode: false });
    }
    expect((await client(repo, ['push', '-q', 'origin', 'HEAD:topic'], env())).code).toBe(0);
  });
});
