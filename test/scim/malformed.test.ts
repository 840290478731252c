/**
 * A fuzzer's bad input against the SCIM API: malformed strings (an unpaired surrogate from a JSON escape, a NUL,
 * invalid UTF-8) in a body not declared as JSON get the check every body gets (400, nothing written); a state that
 * already holds such a string (an older version wrote it) still lists; filters nested or chained beyond any real
 * one are an `invalidFilter`, not a stack overflow.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_TOKENS, findUserByEmail } from '@forgefold/core';
import { startServer, type TestServer } from '../support/server.js';
import { expectScimError, scimClient, setupScimGroup, user, type ScimClient, type ScimGroup } from './support.js';

let server: TestServer;
let group: ScimGroup;
let scim: ScimClient;

beforeAll(async () => {
  // %{email} in the template: the address is %-encoded into every avatar URL. A large URL limit lets a GET carry
  // filters as long as the PATCH bodies below.
  server = await startServer({ config: { gravatarUrl: 'https://avatars.example.com/%{hash}?s=%{size}&e=%{email}', maxUrlBytes: 4 * 1024 * 1024 } });
  group = await setupScimGroup(server, 'fuzzed');
  scim = scimClient(group);
  expect((await scim('POST', '/Users', { body: user('ext-ok', 'okay', 'okay@example.com') })).status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

/** Sends `body` verbatim (a JSON text with `\u0000`/`\ud800` escapes, or bytes) with the SCIM token and the given Content-Type, or none. */
const send = (method: string, path: string, body: string | Buffer, contentType: string | null): Promise<{ status: number; contentType: string | undefined; text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(`${group.url}${path}`);
    const headers: Record<string, string> = { Authorization: `Bearer ${group.token}`, 'Content-Length': String(Buffer.byteLength(body)) };
    if (contentType !== null) headers['Content-Type'] = contentType;
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(body);
  });

const malformed = (where: string) =>
  JSON.stringify({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: '400',
    scimType: 'invalidSyntax',
    detail: `Malformed string in ${where} (invalid UTF-8, an unpaired surrogate or a null byte)`,
  });

const userBody = (externalId: string, userName: string, email: string) =>
  `{"externalId":"${externalId}","userName":"${userName}","emails":[{"value":"${email}","type":"work"}],"name":{"formatted":"X"}}`;

describe('malformed strings in a SCIM body', () => {
  it.each([['text/plain'], ['no Content-Type'], ['application/scim+json']])('POST /Users with %s: 400 invalidSyntax, nothing written', async (type) => {
    const contentType = type === 'no Content-Type' ? null : type;
    const before = server.app.position;
    for (const [body, where] of [
      [userBody('\\ud800', 'surr1', 'surr1@example.com'), "parameter 'externalId'"],
      [userBody('a\\u0000b', 'nul1', 'nul1@example.com'), "parameter 'externalId'"],
      [userBody('nul2', 'nu\\u0000l2', 'nul2@example.com'), "parameter 'userName'"],
      [userBody('g1', 'g1', 'g\\ud800@example.com'), "parameter 'emails'"],
      [Buffer.concat([Buffer.from(userBody('bad', 'bad', 'bad')), Buffer.from([0xc0])]), 'the request body'],
    ] as const) {
      const r = await send('POST', '/Users', body, contentType);
      expect([String(body), r.status, r.contentType, r.text]).toEqual([String(body), 400, 'application/scim+json', malformed(where)]);
    }
    expect(server.app.position).toBe(before);
    for (const email of ['surr1@example.com', 'nul1@example.com', 'nul2@example.com']) expect(findUserByEmail(server.app.state.users, email)).toBeUndefined();
    const list = await scim('GET', '/Users');
    expect(list.status).toBe(200);
    expect(list.body.Resources.map((r: { id: string }) => r.id)).toEqual(['ext-ok']);
  });

  it.each([['text/plain'], ['no Content-Type']])('PATCH and PUT /Users/:id with %s: 400 invalidSyntax, nothing written', async (type) => {
    const contentType = type === 'no Content-Type' ? null : type;
    const before = server.app.position;
    for (const [method, body, where] of [
      ['PATCH', '{"Operations":[{"op":"replace","path":"userName","value":"x\\u0000"}]}', "parameter 'Operations'"],
      ['PATCH', '{"Operations":[{"op":"replace","value":{"externalId":"\\udc00"}}]}', "parameter 'Operations'"],
      ['PUT', userBody('ext-ok', 'okay\\ud800', 'okay@example.com'), "parameter 'userName'"],
    ] as const) {
      const r = await send(method, '/Users/ext-ok', body, contentType);
      expect([method, body, r.status, r.text]).toEqual([method, body, 400, malformed(where)]);
    }
    expect(server.app.position).toBe(before);
    expect((await scim('GET', '/Users/ext-ok')).body).toMatchObject({ id: 'ext-ok', userName: 'okay' });
  });

  it('a well-formed body without a JSON Content-Type is still read as JSON', async () => {
    const r = await send('POST', '/Users', userBody('ext-plain', 'plain', 'plain@example.com'), 'text/plain');
    expect(r.status).toBe(201);
    expect(JSON.parse(r.text)).toMatchObject({ id: 'ext-plain', userName: 'plain' });
    expect((await send('PATCH', '/Users/ext-plain', '{"Operations":[{"op":"replace","path":"userName","value":"plainer"}]}', null)).status).toBe(204);
    expect((await scim('GET', '/Users/ext-plain')).body.userName).toBe('plainer');
  });
});

describe('a stored malformed string (written before the check existed)', () => {
  it('never makes a list or a member answer 500: it is escaped as U+FFFD where it is %-encoded', async () => {
    // The log is append-only: seed it through the application, as an older version's SCIM POST did.
    const seeded = await server.app.execute(
      { userId: null, origin: 'scim', requestId: 'seed' },
      { type: 'ProvisionScimIdentity', group_id: group.id, extern_uid: 'lone\ud800', user_name: 'lone', email: 'g\ud800@example.com', name: 'Lone', given_name: null, family_name: null, active: true },
    );
    expect(E.isRight(seeded)).toBe(true);
    const list = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "lone"')}`);
    expect(list.status).toBe(200);
    expect(list.body.Resources).toHaveLength(1);
    expect(list.body.Resources[0]).toMatchObject({ id: 'lone\ud800', meta: { location: `${group.url}/Users/lone%EF%BF%BD` } });
    expect((await scim('GET', '/Users')).status).toBe(200);

    const userId = findUserByEmail(server.app.state.users, 'g\ud800@example.com')!.id;
    const avatar = 'https://avatars.example.com/';
    for (const path of ['/api/v4/users?per_page=100', `/api/v4/users/${userId}`, `/api/v4/groups/${group.id}/members`, `/api/v4/groups/${group.id}/members/all`]) {
      const r = await server.request('GET', path);
      expect([path, r.status]).toEqual([path, 200]);
      const shown = (Array.isArray(r.body) ? r.body : [r.body]).find((u: { id: number }) => u.id === userId);
      expect([path, shown.avatar_url]).toEqual([path, expect.stringMatching(new RegExp(`^${avatar}[0-9a-f]{32}\\?s=80&e=g%EF%BF%BD%40example\\.com$`))]);
    }
  });
});

describe('filters beyond the bounds', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}type eq "work"${')'.repeat(depth)}`;
  const chained = (terms: number) => Array.from({ length: terms }, () => 'type eq "work"').join(' and ');
  const tooDeep = `Filter nested deeper than ${MAX_FILTER_DEPTH} levels`;
  const tooLong = `Filter longer than ${MAX_FILTER_TOKENS} tokens`;
  const patchEmail = (filter: string) => scim('PATCH', '/Users/ext-ok', { body: { Operations: [{ op: 'replace', path: `emails[${filter}].value`, value: 'x@example.com' }] } });

  it('PATCH: a value path nested or chained beyond them is 400 invalidFilter, not a stack overflow; nothing written', async () => {
    const before = server.app.position;
    for (const [filter, detail] of [
      [nested(20_000), tooDeep],
      [nested(MAX_FILTER_DEPTH), tooDeep], // the brackets are a level
      [chained(20_000), tooLong],
      [chained(100_000), tooLong],
      [chained(MAX_FILTER_TOKENS / 4 + 50), tooLong],
    ] as const) {
      const r = await patchEmail(filter);
      expectScimError(r, 400, 'invalidFilter');
      expect(r.body.detail).toBe(detail);
    }
    expect(server.app.position).toBe(before);
    expect((await scim('GET', '/Users/ext-ok')).body.emails).toEqual([{ type: 'work', value: 'okay@example.com', primary: true }]);
  });

  it('PATCH: a value path at the bounds applies', async () => {
    expect((await patchEmail(nested(MAX_FILTER_DEPTH - 1))).status).toBe(204);
    expect((await patchEmail(chained(MAX_FILTER_TOKENS / 4 - 24))).status).toBe(204);
    expect((await scim('GET', '/Users/ext-ok')).body.emails).toEqual([{ type: 'work', value: 'x@example.com', primary: true }]);
  });

  it('GET ?filter=: the same bounds, the same 400 invalidFilter', async () => {
    const get = (filter: string) => scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    for (const [filter, detail] of [
      [`emails[${nested(20_000)}]`, tooDeep],
      [nested(20_000).replace('type', 'userName'), tooDeep],
      [`emails[${chained(20_000)}]`, tooLong],
      [chained(20_000).replaceAll('type', 'userName'), tooLong],
    ] as const) {
      const r = await get(filter);
      expectScimError(r, 400, 'invalidFilter');
      expect(r.body.detail).toBe(detail);
    }
    // As deep as allowed, and near the length bound (4 tokens a comparison with its "and"; exact bounds: filter.test.ts).
    const deepest = nested(MAX_FILTER_DEPTH).replace('type eq "work"', 'userName eq "okay"');
    const atBound = await get(`${chained(MAX_FILTER_TOKENS / 4 - 2 * MAX_FILTER_DEPTH).replaceAll('type eq', 'emails.type eq')} and ${deepest}`);
    expect(atBound.status).toBe(200);
    expect(atBound.body.Resources.map((r: { id: string }) => r.id)).toEqual(['ext-ok']);
  });
});
