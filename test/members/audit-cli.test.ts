/** `forgefold audit` over a data directory written by a real server. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForgefold } from '@forgefold/cli';
import { cliInProcess } from '../cli/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'forgefold-audit-'));
let now = Date.parse('2026-03-01T10:00:00.000Z');

beforeAll(async () => {
  const server = await startForgefold(
    { port: 0, host: '127.0.0.1', dataDir: dir, rootToken: 'glpat-audit-root-0000', synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false },
    { clock: { now: () => new Date(now).toISOString() }, say: () => undefined, log: () => undefined },
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': 'glpat-audit-root-0000', 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return response.json().catch(() => null) as Promise<any>;
  };
  const bob = await call('POST', '/users', { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'password123' });
  const group = await call('POST', '/groups', { name: 'Acme', path: 'acme' });
  now += 86_400_000;
  await call('POST', `/groups/${group.id}/members`, { user_id: bob.id, access_level: 30 });
  now += 86_400_000;
  await call('PUT', `/groups/${group.id}/members/${bob.id}?sudo=root`, { access_level: 40 });
  now += 86_400_000;
  await call('DELETE', `/groups/${group.id}/members/${bob.id}`);
  await server.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('forgefold audit', () => {
  it('prints the membership history of a user with the acting users', async () => {
    const run = await cliInProcess(['audit', '--data', dir, '--user', 'bob', '--json']);
    expect(run.status).toBe(0);
    const entries = JSON.parse(run.stdout) as { event: string; access_level?: number; actor_id: number | null }[];
    expect(entries.map((e) => [e.event, e.access_level])).toEqual([
      ['MemberAdded', 30],
      ['MemberAccessLevelChanged', 40],
      ['MemberRemoved', undefined],
    ]);
    const text = await cliInProcess(['audit', '--data', dir, '--group', 'acme']);
    expect(text.stdout).toContain('MemberAccessLevelChanged');
    expect(text.stdout).toContain('by root');
  });

  it('prints the members of a group as of a past time', async () => {
    const run = await cliInProcess(['audit', '--data', dir, '--group', 'acme', '--at', '2026-03-03T12:00:00Z', '--json']);
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as { username: string; access_level: number }[]).map((m) => [m.username, m.access_level])).toEqual([['root', 50], ['bob', 40]]);
    const later = await cliInProcess(['audit', '--data', dir, '--group', 'acme', '--at', '2026-03-05T00:00:00Z']);
    expect(later.stdout).toContain('members as of 2026-03-05T00:00:00.000Z: 1');
    expect((await cliInProcess(['audit', '--data', dir])).status).toBe(64);
  });
});
