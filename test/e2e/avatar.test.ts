/**
 * Avatars: `POST /users` and `PUT /users/:id` take a multipart `avatar`, store it under the data directory and
 * serve the same bytes at the `avatar_url` they answer (python-gitlab's functional test does exactly this).
 * Without an upload and without a configured Gravatar template, `avatar_url` is null: no third-party URL.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForgefold, type RunningForgefold, type ServeConfig } from '@forgefold/cli';

const TOKEN = 'glpat-avatar-root-00000';
const dataDir = mkdtempSync(join(tmpdir(), 'forgefold-avatar-'));
const config = (extra: Partial<ServeConfig> = {}): ServeConfig => ({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  rootToken: TOKEN,
  synchronous: 'NORMAL',
  impersonationEnabled: true,
  snapshotEvery: 0,
  accessLog: false,
  ...extra,
});
const start = (extra: Partial<ServeConfig> = {}) => startForgefold(config(extra), { say: () => undefined, log: () => undefined, freezeState: true });

/** A 1×1 PNG, and another image's bytes: what matters is that the same bytes come back. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const OTHER = Buffer.concat([PNG, Buffer.from('second image')]);

let server: RunningForgefold;

const form = (fields: Record<string, string>, file?: { readonly name: string; readonly data: Buffer; readonly type?: string }): FormData => {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  if (file) body.append('avatar', new Blob([file.data], { type: file.type ?? 'image/png' }), file.name);
  return body;
};

const send = async (method: string, path: string, body?: FormData) => {
  const response = await fetch(`${server.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': TOKEN }, ...(body ? { body } : {}) });
  return { status: response.status, body: (await response.json()) as any };
};

const fetchBytes = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
};

const uploadsDir = join(dataDir, 'uploads');
const storedFiles = (): string[] => {
  try {
    return readdirSync(uploadsDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
};

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('user avatars', () => {
  let aliceId: number;

  it('POST /users with a multipart avatar answers its URL on this server, which serves the same bytes to anyone', async () => {
    const created = await send('POST', '/users', form({ username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'correct-horse-battery' }, { name: 'avatar.png', data: PNG }));
    expect(created.status).toBe(201);
    aliceId = created.body.id;
    expect(created.body.avatar_url).toBe(`${server.url}/uploads/-/system/user/avatar/${aliceId}/avatar.png`);
    const served = await fetchBytes(created.body.avatar_url);
    expect(served.status).toBe(200);
    expect(served.type).toBe('image/png');
    expect(served.bytes.equals(PNG)).toBe(true);
    // Every entity showing the user shows the same URL.
    expect((await send('GET', `/users/${aliceId}`)).body.avatar_url).toBe(created.body.avatar_url);
    const group = await send('POST', '/groups', form({ name: 'Acme', path: 'acme' }));
    await send('POST', `/groups/${group.body.id}/members`, form({ user_id: String(aliceId), access_level: '30' }));
    const members = await send('GET', `/groups/${group.body.id}/members`);
    expect(members.body.find((m: { id: number }) => m.id === aliceId).avatar_url).toBe(created.body.avatar_url);
    // Stored under the data directory, owner-only.
    const files = storedFiles();
    expect(files).toHaveLength(1);
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
  });

  it('without an upload or a Gravatar template, avatar_url is null: no external URL anywhere', async () => {
    const bob = await send('POST', '/users', form({ username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'correct-horse-battery' }));
    expect(bob.status).toBe(201);
    expect(bob.body.avatar_url).toBeNull();
    const everyone = await fetch(`${server.url}/api/v4/users`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
    expect(await everyone.text()).not.toContain('gravatar');
  });

  it('PUT /users/:id replaces the avatar (file name sanitised as the platform does); the old URL stops serving', async () => {
    const before = (await send('GET', `/users/${aliceId}`)).body.avatar_url as string;
    const updated = await send('PUT', `/users/${aliceId}`, form({}, { name: 'new face (1).PNG', data: OTHER }));
    expect(updated.status).toBe(200);
    expect(updated.body.avatar_url).toBe(`${server.url}/uploads/-/system/user/avatar/${aliceId}/new_face__1_.PNG`);
    const served = await fetchBytes(updated.body.avatar_url);
    expect(served.bytes.equals(OTHER)).toBe(true);
    expect((await fetchBytes(before)).status).toBe(404);
    expect((await fetchBytes(`${server.url}/uploads/-/system/user/avatar/999/avatar.png`)).status).toBe(404);
  });

  it('refuses what the platform refuses, and then stores nothing and changes nothing', async () => {
    const files = storedFiles();
    const position = server.app.position;
    const wrongType = await send('POST', '/users', form({ username: 'carol', name: 'Carol', email: 'carol@example.com', password: 'correct-horse-battery' }, { name: 'avatar.txt', data: Buffer.from('text'), type: 'text/plain' }));
    expect(wrongType).toEqual({
      status: 400,
      body: { message: { avatar: ['file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp'] } },
    });
    const tooBig = await send('PUT', `/users/${aliceId}`, form({}, { name: 'big.png', data: Buffer.alloc(200 * 1024 + 1, 1) }));
    expect(tooBig).toEqual({ status: 400, body: { message: { avatar: ['is too big (should be at most 200 KB)'] } } });
    const notAFile = await send('PUT', `/users/${aliceId}`, form({ avatar: 'https://example.com/me.png' }));
    expect(notAFile).toEqual({ status: 400, body: { error: 'avatar is invalid' } });
    expect(server.app.position).toBe(position);
    expect(storedFiles()).toEqual(files);
  });

  it('an empty file is taken as the platform takes it: a named one is an avatar of 0 bytes, a nameless part no upload at all', async () => {
    const files = storedFiles();
    const position = server.app.position;
    // Rack drops a file part whose filename is "" (what a browser sends for "no file chosen"): the update has no
    // avatar, and keeps the one it had. (undici's FormData leaves such a filename out, so the body is written here.)
    const emptyFilePart = async (fields: Record<string, string>) => {
      const boundary = 'forgefold-empty-file';
      const parts = [...Object.entries(fields).map(([name, value]) => `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`), 'Content-Disposition: form-data; name="avatar"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n'];
      const body = `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
      const response = await fetch(`${server.url}/api/v4/users/${aliceId}`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body });
      return { status: response.status, body: (await response.json()) as any };
    };
    const none = await emptyFilePart({ name: 'Alice A' });
    expect(none.status).toBe(200);
    expect(none.body.name).toBe('Alice A');
    expect(none.body.avatar_url).toMatch(/\/new_face__1_\.PNG$/);
    const alone = await emptyFilePart({});
    expect(alone.status).toBe(200);
    expect(alone.body.avatar_url).toBe(none.body.avatar_url);
    // A part without a filename is a string, which Grape's File type refuses (as any string).
    expect(await send('PUT', `/users/${aliceId}`, form({}, { name: '', data: Buffer.alloc(0) }))).toEqual({ status: 400, body: { error: 'avatar is invalid' } });
    expect(storedFiles()).toEqual(files);
    expect(server.app.position).toBe(position + 1);
    // CarrierWave's `SanitizedFile#empty?` is false for an empty file that exists, and Avatarable checks only the
    // extension and a maximum size: a named empty image is accepted and served as it came, 0 bytes.
    const dave = await send('POST', '/users', form({ username: 'dave', name: 'Dave', email: 'dave@example.com', password: 'correct-horse-battery' }, { name: 'empty.png', data: Buffer.alloc(0) }));
    expect(dave.status).toBe(201);
    expect(dave.body.avatar_url).toBe(`${server.url}/uploads/-/system/user/avatar/${dave.body.id}/empty.png`);
    const served = await fetchBytes(dave.body.avatar_url);
    expect(served.status).toBe(200);
    expect(served.bytes.length).toBe(0);
  });

  it('survives a restart: the log names the file, the data directory keeps it', async () => {
    const url = (await send('GET', `/users/${aliceId}`)).body.avatar_url as string;
    await server.close();
    server = await start();
    const again = (await send('GET', `/users/${aliceId}`)).body.avatar_url as string;
    expect(again.replace(/:\d+\//, ':PORT/')).toBe(url.replace(/:\d+\//, ':PORT/'));
    expect((await fetchBytes(again)).bytes.equals(OTHER)).toBe(true);
  });

  it('with a Gravatar template configured, users without an upload get it filled in', async () => {
    await server.close();
    server = await start({ gravatarUrl: 'https://avatars.example.com/%{hash}?s=%{size}&u=%{username}' });
    const bob = (await send('GET', '/users?username=bob')).body[0];
    // MD5 of "bob@example.com".
    expect(bob.avatar_url).toBe('https://avatars.example.com/4b9bb80620f03eb3719e0a061c14283d?s=80&u=bob');
    expect((await send('GET', `/users/${aliceId}`)).body.avatar_url).toMatch(/\/uploads\/-\/system\/user\/avatar\/\d+\/new_face__1_\.PNG$/);
  });
});
