/** End-to-end: the set-up API and every SCIM operation and error over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findScimToken, findUserByEmail } from '@forgefold/core';
import { startServer, type TestServer } from '../support/server.js';
import { FINGERPRINT, expectScimError, membershipOf, scimClient, setupScimGroup, user, type ScimClient, type ScimGroup } from './support.js';

let server: TestServer;
let seq = 0;
const fresh = () => `g${++seq}`;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const newUser = async (username: string, extra: Record<string, unknown> = {}) => {
  const res = await server.request('POST', '/api/v4/users', {
    body: { username, name: username, email: `${username}@example.com`, password: 'correct-horse-battery', skip_confirmation: true, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: number };
};
const tokenFor = async (userId: number) => {
  const res = await server.request('POST', `/api/v4/users/${userId}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
  expect(res.status).toBe(201);
  return res.body.token as string;
};

describe('set-up API', () => {
  it('configures SAML for a top-level group (owner or admin) and shows it', async () => {
    const path = fresh();
    const group = (await server.request('POST', '/api/v4/groups', { body: { name: path, path } })).body;
    expect((await server.request('GET', `/api/v4/groups/${group.id}/saml_provider`)).body).toEqual({ message: '404 SAML Provider Not Found' });
    const missing = await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: true } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: { sso_url: ["can't be blank"], certificate_fingerprint: ["can't be blank"] } });
    const bad = await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, {
      body: { sso_url: 'http://idp.example.com', certificate_fingerprint: 'zz', default_membership_role: 50 },
    });
    expect(bad.body).toEqual({
      message: { sso_url: ['must be a valid URL using https'], certificate_fingerprint: ['is invalid'], default_membership_role: ['is not included in the list'] },
    });
    const put = await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, {
      body: { sso_url: 'https://idp.example.com/sso', certificate_fingerprint: FINGERPRINT, enforced_sso: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ group_id: group.id, enabled: true, sso_url: 'https://idp.example.com/sso', certificate_fingerprint: FINGERPRINT, enforced_sso: true, default_membership_role: 10 });
    const again = await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { default_membership_role: 20 } });
    expect(again.body).toMatchObject({ id: put.body.id, sso_url: 'https://idp.example.com/sso', default_membership_role: 20 });
    expect((await server.request('GET', `/api/v4/groups/${encodeURIComponent(path)}/saml_provider`)).body).toEqual(again.body);
    const typed = await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { default_membership_role: 'x' } });
    expect(typed).toMatchObject({ status: 400, body: { error: 'default_membership_role is invalid' } });
  });

  it('refuses subgroups, non-owners and strangers', async () => {
    const path = fresh();
    const group = (await server.request('POST', '/api/v4/groups', { body: { name: path, path, visibility: 'public' } })).body;
    const sub = (await server.request('POST', '/api/v4/groups', { body: { name: 'sub', path: 'sub', parent_id: group.id } })).body;
    const subPut = await server.request('PUT', `/api/v4/groups/${sub.id}/saml_provider`, { body: { sso_url: 'https://x.example', certificate_fingerprint: FINGERPRINT } });
    expect(subPut).toMatchObject({ status: 400, body: { message: '400 Bad request - SAML single sign-on and SCIM are only available for top-level groups' } });
    const stranger = await newUser(`stranger${seq}`);
    const token = await tokenFor(stranger.id);
    expect((await server.request('GET', `/api/v4/groups/${group.id}/saml_provider`, { token })).status).toBe(403);
    expect((await server.request('POST', `/api/v4/groups/${group.id}/scim_token`, { token })).body).toEqual({ message: '403 Forbidden' });
    expect((await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { token, body: {} })).status).toBe(403);
    expect((await server.request('POST', `/api/v4/groups/999999/scim_token`)).body).toEqual({ message: '404 Group Not Found' });
    expect((await server.request('POST', `/api/v4/groups/${group.id}/scim_token`, { token: null })).status).toBe(401);
  });

  it('shows the SCIM token once, stores only its digest, and rotation invalidates the previous token', async () => {
    const group = await setupScimGroup(server, fresh());
    expect(group.url).toBe(`${server.baseUrl}/api/scim/v2/groups/${group.path}`);
    expect(group.token).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const stored = findScimToken(server.app.state.scim, group.id)!;
    expect(stored.token_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(server.app.state)).not.toContain(group.token);
    const scim = scimClient(group);
    expect((await scim('GET', '/Users')).status).toBe(200);
    const rotated = await server.request('POST', `/api/v4/groups/${group.id}/scim_token`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.scim_token).not.toBe(group.token);
    const old = await scim('GET', '/Users');
    expect(old.status).toBe(401);
    expect((await scim('GET', '/Users', { token: rotated.body.scim_token })).status).toBe(200);
  });
});

describe('SCIM: mount, group and token checks', () => {
  let group: ScimGroup;
  let scim: ScimClient;
  beforeAll(async () => {
    group = await setupScimGroup(server, fresh());
    scim = scimClient(group);
  });

  it('404 for an unknown group and for a group without SAML, even without a token', async () => {
    const unknown = await fetch(`${server.baseUrl}/api/scim/v2/groups/nope/Users`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/scim+json');
    expect(await unknown.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404', detail: 'Group nope not found' });
    const path = fresh();
    await server.request('POST', '/api/v4/groups', { body: { name: path, path } });
    const plain = await fetch(`${server.baseUrl}/api/scim/v2/groups/${path}/Users/x`, { method: 'PATCH' });
    expect(plain.status).toBe(404);
    expect(((await plain.json()) as { detail: string }).detail).toBe(`Group ${path} does not have SAML SSO configured`);
  });

  it('401 without a token, with a wrong one, and with the token of another group; the platform message stays', async () => {
    const other = await setupScimGroup(server, fresh());
    for (const token of [null, 'wrong', other.token]) {
      const res = await scim('GET', '/Users', { token });
      expectScimError(res, 401);
      expect(res.body.message).toBe('401 Unauthorized');
    }
    // access_token as a query parameter works too
    const viaParam = await fetch(`${group.url}/Users?access_token=${group.token}`);
    expect(viaParam.status).toBe(200);
  });

  it('finds the group by id and by case-insensitive full path', async () => {
    expect((await fetch(`${server.baseUrl}/api/scim/v2/groups/${group.id}/Users`, { headers: { Authorization: `Bearer ${group.token}` } })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/api/scim/v2/groups/${group.path.toUpperCase()}/Users`, { headers: { Authorization: `Bearer ${group.token}` } })).status).toBe(200);
  });
});

describe('SCIM: POST /Users', () => {
  let group: ScimGroup;
  let scim: ScimClient;
  beforeAll(async () => {
    group = await setupScimGroup(server, fresh());
    scim = scimClient(group);
  });

  it('creates the user, the membership at the default role and the identity', async () => {
    const res = await scim('POST', '/Users', { body: user('ext-1', 'alice', 'Alice@Example.com') });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/scim+json');
    expect(res.headers.get('location')).toBe(`${group.url}/Users/ext-1`);
    expect(res.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: 'ext-1',
      externalId: 'ext-1',
      active: true,
      // Saved lower-cased (Devise's case_insensitive_keys): `emails` shows the account's e-mail.
      emails: [{ type: 'work', value: 'alice@example.com', primary: true }],
      'name.formatted': 'alice Person',
      name: { formatted: 'alice Person', givenName: 'alice', familyName: 'Person' },
      meta: { resourceType: 'User', location: `${group.url}/Users/ext-1` },
      userName: 'alice',
    });
    expect(Object.keys(res.body).slice(0, 4)).toEqual(['schemas', 'id', 'externalId', 'active']);
    expect(membershipOf(server.app.state, group.id, 'alice@example.com')).toMatchObject({ access_level: 30, state: 'active' });
    const created = findUserByEmail(server.app.state.users, 'alice@example.com')!;
    expect(created.username).toBe('alice');
  });

  it('a token\'s bot reached by its e-mail, holding its project\'s membership, is not linked: 412 (EE `member.valid?`)', async () => {
    const path = fresh();
    const project = await server.request('POST', '/api/v4/projects', { body: { name: path, path } });
    expect(project.status).toBe(201);
    const token = await server.request('POST', `/api/v4/projects/${project.body.id}/access_tokens`, { body: { name: 'bot', scopes: ['api'], access_level: 30 } });
    expect(token.status).toBe(201);
    const email = (await server.request('GET', `/api/v4/users/${token.body.user_id}`)).body.email as string;
    const res = await scim('POST', '/Users', { body: user('ext-bot', 'bot', email) });
    expectScimError(res, 412);
    expect(res.body.detail).toContain('User project bots cannot be added to other groups / projects');
    expect((await scim('GET', '/Users/ext-bot')).status).toBe(404);
    expect(membershipOf(server.app.state, group.id, email)).toBeUndefined();
  });

  it('a token\'s bot held elsewhere is 412 before any uniqueness: its userName or its e-mail already in the group, or the identity of its externalId left the group', async () => {
    const own = await setupScimGroup(server, fresh());
    const ownScim = scimClient(own);
    const emailOf = async (id: number) => (await server.request('GET', `/api/v4/users/${id}`)).body.email as string;
    const path = fresh();
    const project = (await server.request('POST', '/api/v4/projects', { body: { name: path, path } })).body;
    const projectBot = (await server.request('POST', `/api/v4/projects/${project.id}/access_tokens`, { body: { name: 'bot', scopes: ['api'], access_level: 30 } })).body.user_id as number;
    expect((await ownScim('POST', '/Users', { body: user('ext-dana', 'dana', `dana${seq}@example.com`) })).status).toBe(201);
    // A userName another identity of the group holds (our own rule, 409 for anyone else): the platform never looks at it.
    const byUserName = await ownScim('POST', '/Users', { body: user('ext-b1', 'dana', await emailOf(projectBot)) });
    expectScimError(byUserName, 412);
    expect(byUserName.body.detail).toMatch(/^Error saving user with \{"schemas"=>.*"externalId"=>"ext-b1".*\}: User project bots cannot be added to other groups \/ projects$/);
    // The group's own token's bot is linked (it is a member), leaves the group, then joins the project.
    const groupBot = (await server.request('POST', `/api/v4/groups/${own.id}/access_tokens`, { body: { name: 'bot', scopes: ['api'], access_level: 30 } })).body.user_id as number;
    const email = await emailOf(groupBot);
    expect((await ownScim('POST', '/Users', { body: user('ext-b2', 'bot', email) })).status).toBe(201);
    expect((await ownScim('PATCH', '/Users/ext-b2', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } })).status).toBe(204);
    expect(membershipOf(server.app.state, own.id, email)).toBeUndefined();
    expect((await server.request('POST', `/api/v4/projects/${project.id}/members`, { body: { user_id: groupBot, access_level: 30 } })).status).toBe(201);
    // Its e-mail already linked under another externalId: `create_identity_and_member`'s `member.valid?` fails before
    // the identity's "User has already been taken" is looked for.
    const byEmail = await ownScim('POST', '/Users', { body: user('ext-b3', 'bot', email) });
    expectScimError(byEmail, 412);
    expect(byEmail.body.detail).toMatch(/^Error saving user with \{"schemas"=>.*"externalId"=>"ext-b3".*\}: User project bots cannot be added to other groups \/ projects$/);
    // The same externalId again, its identity's user no longer in the group: not `existing_identity_and_member?`, so the
    // platform goes on to add the e-mail's user, and fails the same way.
    expectScimError(await ownScim('POST', '/Users', { body: user('ext-b2', 'bot', email) }), 412);
    expect(membershipOf(server.app.state, own.id, email)).toBeUndefined();
    expect((await ownScim('GET', '/Users/ext-b3')).status).toBe(404);
    expect((await ownScim('GET', '/Users/ext-b2')).body).toMatchObject({ id: 'ext-b2', active: false });
  });

  it('the same externalId again answers 201 with the existing resource, unchanged', async () => {
    const again = await scim('POST', '/Users', { body: user('EXT-1', 'someone-else', 'other@example.com') });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: 'ext-1', userName: 'alice' });
    expect(findUserByEmail(server.app.state.users, 'other@example.com')).toBeUndefined();
  });

  it('409 uniqueness for a userName or an e-mail held by another identity of the group', async () => {
    expectScimError(await scim('POST', '/Users', { body: user('ext-2', 'ALICE', 'new@example.com') }), 409, 'uniqueness');
    // A member's e-mail: the new identity's save fails on ScimIdentity's `user` uniqueness (EE `create_identity`).
    const byEmail = await scim('POST', '/Users', { body: user('ext-3', 'alice2', 'ALICE@example.com') });
    expectScimError(byEmail, 409, 'uniqueness');
    expect(byEmail.body.detail).toBe(
      'Error saving user with {"schemas"=>["urn:ietf:params:scim:schemas:core:2.0:User"], "externalId"=>"ext-3", "userName"=>"alice2", ' +
        '"emails"=>[{"primary"=>true, "type"=>"work", "value"=>"ALICE@example.com"}], "name"=>{"formatted"=>"alice2 Person", "givenName"=>"alice2", "familyName"=>"Person"}, ' +
        `"version"=>"v2", "group"=>"${group.path}"}: User has already been taken`,
    );
    expect((await scim('GET', '/Users/ext-3')).status).toBe(404);
  });

  it('a blank e-mail that is sent is the new account\'s 412 "Email can\'t be blank", nothing saved', async () => {
    // `post_params` drops only nil values: the blank e-mail reaches the User's save (Devise's presence; the format
    // check allows blank). Devise strips it, so whitespace only is blank too.
    for (const [externalId, email] of [['ext-blank-1', ''], ['ext-blank-2', '  ']] as const) {
      const res = await scim('POST', '/Users', { body: user(externalId, 'blanky', email) });
      expectScimError(res, 412);
      expect(res.body.detail).toBe(
        `Error saving user with {"schemas"=>["urn:ietf:params:scim:schemas:core:2.0:User"], "externalId"=>"${externalId}", "userName"=>"blanky", ` +
          `"emails"=>[{"primary"=>true, "type"=>"work", "value"=>"${email}"}], "name"=>{"formatted"=>"blanky Person", "givenName"=>"blanky", "familyName"=>"Person"}, ` +
          `"version"=>"v2", "group"=>"${group.path}"}: Email can't be blank`,
      );
      expect((await scim('GET', `/Users/${externalId}`)).status).toBe(404);
    }
  });

  it('the params in a failure are Ruby 2.7 `inspect`s of the filtered request params', async () => {
    const body = {
      ...user('ext-4', 'alice4', 'alice@example.com'),
      active: null,
      displayName: 'Say "hi" #{x} \\ #$y\n\u0001é',
      ratio: 1.5,
      tiny: 0.00001,
      certificate: { pem: 'x' },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: 7, manager: [{ secretValue: 's', value: 'm' }] },
    };
    const res = await scim('POST', '/Users', { body });
    expectScimError(res, 409, 'uniqueness');
    expect(res.body.detail).toContain(
      '"active"=>nil, "displayName"=>"Say \\"hi\\" \\#{x} \\\\ \\#$y\\n\\u0001é", "ratio"=>1.5, "tiny"=>1.0e-05, "certificate"=>"[FILTERED]", ' +
        '"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"=>{"employeeNumber"=>7, "manager"=>[{"secretValue"=>"[FILTERED]", "value"=>"m"}]}, "version"=>"v2"',
    );
  });

  it('an account out of the group linked under another externalId: it joins the group, then 409 "User has already been taken" (no transaction)', async () => {
    const own = await setupScimGroup(server, fresh());
    const ownScim = scimClient(own);
    const email = `lena${seq}@example.com`;
    expect((await ownScim('POST', '/Users', { body: user('ext-lena', 'lena', email) })).status).toBe(201);
    expect((await ownScim('PATCH', '/Users/ext-lena', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } })).status).toBe(204);
    expect(membershipOf(server.app.state, own.id, email)).toBeUndefined();
    // Secrets among the params are masked (`filter_parameters`), the query's params come first.
    // Sent again under a new externalId with the same userName: the platform never looks at the userName (our 409 rule
    // for it comes after the account's own identity).
    const res = await ownScim(`POST`, `/Users?access_token=${own.token}`, { body: { ...user('ext-lena-2', 'lena', email), password: 'hunter22' } });
    expectScimError(res, 409, 'uniqueness');
    expect(res.body.detail).toBe(
      'Error saving user with {"access_token"=>"[FILTERED]", "schemas"=>["urn:ietf:params:scim:schemas:core:2.0:User"], "externalId"=>"ext-lena-2", "userName"=>"lena", ' +
        `"emails"=>[{"primary"=>true, "type"=>"work", "value"=>"${email}"}], "name"=>{"formatted"=>"lena Person", "givenName"=>"lena", "familyName"=>"Person"}, ` +
        `"password"=>"[FILTERED]", "version"=>"v2", "group"=>"${own.path}"}: User has already been taken`,
    );
    // `group.add_user` saved the membership before `identity.save` failed.
    expect(membershipOf(server.app.state, own.id, email)).toMatchObject({ access_level: 30, state: 'active' });
    expect((await ownScim('GET', '/Users/ext-lena-2')).status).toBe(404);
    expect((await ownScim('GET', '/Users/ext-lena')).body).toMatchObject({ id: 'ext-lena', active: false });
  });

  it('the same externalId again while its user is out of the group: another account with that e-mail joins, the identity stays; a new e-mail is 412', async () => {
    const own = await setupScimGroup(server, fresh());
    const ownScim = scimClient(own);
    const first = `mona${seq}@example.com`;
    expect((await ownScim('POST', '/Users', { body: user('ext-mona', 'mona', first) })).status).toBe(201);
    expect((await ownScim('PATCH', '/Users/ext-mona', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } })).status).toBe(204);
    // An e-mail no account has: the new account's identity would repeat the externalId; nothing is saved.
    const fresher = await ownScim('POST', '/Users', { body: user('EXT-MONA', 'nina', `nina${seq}@example.com`) });
    expectScimError(fresher, 412);
    expect(fresher.body.detail).toMatch(/^Error saving user with \{"schemas"=>.*"externalId"=>"EXT-MONA".*"group"=>"[^"]+"\}: Scim identities is invalid$/);
    expect(findUserByEmail(server.app.state.users, `nina${seq}@example.com`)).toBeUndefined();
    // Another existing account, out of the group: it becomes a member; the answer is the existing resource, unchanged.
    const other = await newUser(`otto${seq}`);
    const res = await ownScim('POST', '/Users', { body: user('ext-mona', 'otto', `otto${seq}@example.com`) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'ext-mona', userName: 'mona', active: false, emails: [{ value: first }] });
    expect(membershipOf(server.app.state, own.id, `otto${seq}@example.com`)).toMatchObject({ user_id: other.id, access_level: 30, state: 'active' });
    expect(membershipOf(server.app.state, own.id, first)).toBeUndefined();
    expect((await ownScim('GET', '/Users')).body.totalResults).toBe(1);
  });

  it('links an existing user with that e-mail, and uniquifies a clashing username for new users', async () => {
    const existing = await newUser(`bob${seq}`);
    const res = await scim('POST', '/Users', { body: user('ext-bob', 'robert', `bob${seq}@example.com`) });
    expect(res.status).toBe(201);
    expect(findUserByEmail(server.app.state.users, `bob${seq}@example.com`)!.id).toBe(existing.id);
    expect(membershipOf(server.app.state, group.id, `bob${seq}@example.com`)).toMatchObject({ access_level: 30 });
    await newUser('carol');
    const carol = await scim('POST', '/Users', { body: user('ext-carol', 'carol@corp.example', 'carol.corp@example.com') });
    expect(carol.status).toBe(201);
    expect(carol.body.userName).toBe('carol@corp.example');
    expect(findUserByEmail(server.app.state.users, 'carol.corp@example.com')!.username).toBe('carol1');
  });

  it.each([
    ['externalId', { externalId: undefined }],
    ['userName', { userName: '' }],
    ['emails', { emails: [{ type: 'home', value: 'h@example.com' }] }],
    ['name', { name: {}, displayName: undefined }],
  ])('400 invalidValue naming a missing %s', async (attribute, override) => {
    const body = { ...user(`ext-missing-${attribute}`, `missing-${attribute}`), ...override };
    const res = await scim('POST', '/Users', { body });
    expectScimError(res, 400, 'invalidValue');
    expect(res.body.detail).toContain(attribute);
  });

  it('derives the name from givenName/familyName or displayName, accepts application/json, ignores unknown attributes', async () => {
    const okta = await scim('POST', '/Users', {
      contentType: 'application/json',
      body: { ...user('ext-n1', 'nina'), name: { givenName: 'Nina', familyName: 'Simone' }, locale: 'en-US', password: 'x', groups: [] },
    });
    expect(okta.status).toBe(201);
    expect(okta.body['name.formatted']).toBe('Nina Simone');
    const display = await scim('POST', '/Users', { body: { ...user('ext-n2', 'otis'), name: undefined, displayName: 'Otis Redding' } });
    expect(display.body['name.formatted']).toBe('Otis Redding');
  });

  it('400 invalidSyntax for a body that is not a JSON object; 400 for an invalid e-mail', async () => {
    expectScimError(await scim('POST', '/Users', { raw: '[1,2]' }), 400, 'invalidSyntax');
    expectScimError(await scim('POST', '/Users', { raw: '' , contentType: 'application/scim+json' }), 400, 'invalidSyntax');
    expectScimError(await scim('POST', '/Users', { body: user('ext-bad', 'bad', 'not-an-email') }), 400, 'invalidValue');
  });

  it('provisions into awaiting when the group user cap is reached', async () => {
    const capped = await setupScimGroup(server, fresh());
    const put = await server.request('PUT', `/api/v4/groups/${capped.id}`, { body: { new_user_signups_cap: 1 } });
    expect(put.status).toBe(200);
    const res = await scimClient(capped)('POST', '/Users', { body: user('cap-1', 'capped', 'capped@example.com') });
    expect(res.status).toBe(201);
    expect(membershipOf(server.app.state, capped.id, 'capped@example.com')?.state).toBe('awaiting');
  });
});

describe('SCIM: GET /Users (filters and paging)', () => {
  let group: ScimGroup;
  let scim: ScimClient;
  beforeAll(async () => {
    group = await setupScimGroup(server, fresh());
    scim = scimClient(group);
    for (let i = 1; i <= 25; i++) {
      const res = await scim('POST', '/Users', { body: user(`u${i}`, `user${i}.${group.path}`, `user${i}.${group.path}@example.com`) });
      expect(res.status).toBe(201);
    }
    expect((await scim('POST', '/Users', { body: user('john@corp.example', 'John Smith', 'john.smith@example.com', { name: { formatted: 'Say "Hi"' } }) })).status).toBe(201);
    expect((await scim('PATCH', '/Users/u25', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } })).status).toBe(204);
  });

  const list = async (query: string) => {
    const res = await scim('GET', `/Users${query}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/scim+json');
    return res.body;
  };

  it('lists every identity (inactive included), 20 by default, in a stable order', async () => {
    const body = await list('');
    expect(body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 26, itemsPerPage: 20, startIndex: 1 });
    expect(body.Resources.map((r: { id: string }) => r.id)).toEqual(Array.from({ length: 20 }, (_, i) => `u${i + 1}`));
    expect(body.Resources.find((r: { id: string }) => r.id === 'u25')).toBeUndefined();
    const second = await list('?startIndex=21&count=20');
    expect(second).toMatchObject({ totalResults: 26, itemsPerPage: 6, startIndex: 21 });
    expect(second.Resources[4]).toMatchObject({ id: 'u25', active: false });
  });

  it('paging: startIndex below 1 is 1, count capped at 100, count=0 returns only totalResults, past the end is empty', async () => {
    expect(await list('?startIndex=0&count=2')).toMatchObject({ startIndex: 1, itemsPerPage: 2, totalResults: 26 });
    expect(await list('?startIndex=-5&count=1')).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    expect((await list('?count=1000')).itemsPerPage).toBe(26);
    expect(await list('?count=0')).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 26, itemsPerPage: 0, startIndex: 1, Resources: [] });
    expect(await list('?count=-3')).toMatchObject({ itemsPerPage: 0, Resources: [] });
    expect(await list('?startIndex=100')).toMatchObject({ totalResults: 26, itemsPerPage: 0, startIndex: 100, Resources: [] });
  });

  it('filters with the full grammar; names, operators and values case-insensitive', async () => {
    const ids = async (filter: string) => (await list(`?filter=${encodeURIComponent(filter)}&count=100`)).Resources.map((r: { id: string }) => r.id);
    expect(await ids(`userName eq "USER3.${group.path.toUpperCase()}"`)).toEqual(['u3']);
    expect(await ids(`UserName Eq "user3.${group.path}"`)).toEqual(['u3']);
    expect(await ids('id eq "U7"')).toEqual(['u7']);
    expect(await ids('externalId eq u8')).toEqual(['u8']);
    expect(await ids(`emails[type eq "work"].value eq "USER9.${group.path}@example.com"`)).toEqual(['u9']);
    expect(await ids(`emails.value eq "user10.${group.path}@example.com"`)).toEqual(['u10']);
    expect(await ids('userName eq "John Smith"')).toEqual(['john@corp.example']);
    expect(await ids('name.formatted eq "Say \\"Hi\\""')).toEqual(['john@corp.example']);
    expect(await ids('active eq false')).toEqual(['u25']);
    expect(await ids('active eq "False"')).toEqual(['u25']);
    expect(await ids('not (active eq true)')).toEqual(['u25']);
    expect(await ids(`userName sw "user2" and not (userName ew ".${group.path}x")`)).toEqual(['u2', 'u20', 'u21', 'u22', 'u23', 'u24', 'u25']);
    expect(await ids('(id eq "u1" or id eq "u2") and active pr')).toEqual(['u1', 'u2']);
    expect(await ids('emails[type eq "work" and value co "john"]')).toEqual(['john@corp.example']);
    expect(await ids('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "john smith"')).toEqual(['john@corp.example']);
    expect(await ids('meta.created gt "2000-01-01T00:00:00Z" and id eq "u1"')).toEqual(['u1']);
    expect(await ids('userName eq "nobody"')).toEqual([]);
  });

  it('accepts the encodings identity providers send: %20, + and unencoded spaces', async () => {
    expect((await list(`?filter=userName%20eq%20%22user4.${group.path}%22&startIndex=1&count=100`)).totalResults).toBe(1);
    expect((await list(`?filter=userName+eq+"user5.${group.path}"`)).totalResults).toBe(1);
    const raw = await fetch(`${group.url}/Users?filter=id eq "u6"`, { headers: { Authorization: `Bearer ${group.token}` } });
    expect(((await raw.json()) as { totalResults: number }).totalResults).toBe(1);
  });

  it.each(['userName', 'userName eq', 'userName equals "x"', 'nickName eq "x"', 'name eq "x"', 'active gt true', '((id eq "x")', 'userName eq "x" garbage'])(
    '400 invalidFilter for %j',
    async (filter) => {
      expectScimError(await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
    },
  );

  it('lists nothing while SAML is disabled', async () => {
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: false } });
    expect(await list('')).toMatchObject({ totalResults: 0, Resources: [] });
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: true } });
    expect((await list('')).totalResults).toBe(26);
  });
});

describe('SCIM: GET, PATCH, PUT, DELETE /Users/:id', () => {
  let group: ScimGroup;
  let scim: ScimClient;
  const email = () => `dora.${group.path}@example.com`;
  beforeAll(async () => {
    group = await setupScimGroup(server, fresh());
    scim = scimClient(group);
    expect((await scim('POST', '/Users', { body: user('dora.explorer@idp.example', 'dora', email()) })).status).toBe(201);
  });
  const patch = (id: string, Operations: unknown[]) => scim('PATCH', `/Users/${encodeURIComponent(id)}`, { body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations } });

  it('GET by id: ids with "." and "@", case-insensitive; 404 otherwise', async () => {
    const res = await scim('GET', '/Users/dora.explorer@idp.example');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe('dora.explorer@idp.example');
    expect((await scim('GET', '/Users/DORA.EXPLORER@IDP.EXAMPLE')).body.id).toBe('dora.explorer@idp.example');
    const missing = await scim('GET', '/Users/nobody');
    expectScimError(missing, 404);
    expect(missing.body.detail).toBe('Resource nobody not found');
    expectScimError(await patch('nobody', [{ op: 'replace', path: 'active', value: false }]), 404);
    expectScimError(await scim('DELETE', '/Users/nobody'), 404);
    expectScimError(await scim('PUT', '/Users/nobody', { body: user('nobody', 'nobody') }), 404);
  });

  it('PATCH: ops in any case, path-less objects with dotted keys, string booleans; 204 with an empty body', async () => {
    const res = await patch('dora.explorer@idp.example', [
      { op: 'Replace', path: 'name.familyName', value: 'Marquez' },
      { op: 'add', value: { 'name.givenName': 'Dora', displayName: 'Dora Marquez', title: 'Explorer' } },
      { op: 'REPLACE', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'Maps' },
      { op: 'replace', path: 'addresses[type eq "work"].formatted', value: 'Somewhere' },
    ]);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const body = (await scim('GET', '/Users/dora.explorer@idp.example')).body;
    expect(body.name).toEqual({ formatted: 'Dora Marquez', givenName: 'Dora', familyName: 'Marquez' });
    expect(body['name.formatted']).toBe('Dora Marquez');
  });

  it('PATCH active=false deprovisions: membership removed, resource stays readable with active false; active=true restores it', async () => {
    expect(membershipOf(server.app.state, group.id, email())).toMatchObject({ access_level: 30 });
    expect((await patch('dora.explorer@idp.example', [{ op: 'replace', value: { active: 'False' } }])).status).toBe(204);
    expect(membershipOf(server.app.state, group.id, email())).toBeUndefined();
    expect((await scim('GET', '/Users/dora.explorer@idp.example')).body.active).toBe(false);
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "dora"')}`)).body.Resources[0].active).toBe(false);
    // the default role changed meanwhile: re-provisioning uses the current one
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { default_membership_role: 20 } });
    expect((await patch('dora.explorer@idp.example', [{ op: 'Replace', path: 'active', value: 'True' }])).status).toBe(204);
    expect(membershipOf(server.app.state, group.id, email())).toMatchObject({ access_level: 20, state: 'active' });
    expect((await scim('GET', '/Users/dora.explorer@idp.example')).body.active).toBe(true);
  });

  it('PATCH changes e-mail, userName and externalId; a taken e-mail or userName is 409 uniqueness, a taken externalId 412', async () => {
    expect((await scim('POST', '/Users', { body: user('other', 'other', `other.${group.path}@example.com`) })).status).toBe(201);
    expectScimError(await patch('dora.explorer@idp.example', [{ op: 'replace', path: 'emails[type eq "work"].value', value: `OTHER.${group.path}@example.com` }]), 409, 'uniqueness');
    expectScimError(await patch('dora.explorer@idp.example', [{ op: 'replace', path: 'userName', value: 'Other' }]), 409, 'uniqueness');
    // EE `update_scim_user`: `identity.update(extern_uid:)` returns false, and the endpoint's 412 names the user and the params.
    const byExternalId = await patch('dora.explorer@idp.example', [{ op: 'replace', path: 'externalId', value: 'OTHER' }]);
    expectScimError(byExternalId, 412);
    expect(byExternalId.body.detail).toBe(
      'Error updating Dora Marquez with {"schemas"=>["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations"=>[{"op"=>"replace", "path"=>"externalId", "value"=>"OTHER"}], ' +
        `"version"=>"v2", "group"=>"${group.path}", "id"=>"dora.explorer@idp.example"}`,
    );
    expect((await patch('dora.explorer@idp.example', [{ op: 'replace', path: 'emails[type eq "work"].value', value: `dora2.${group.path}@example.com` }])).status).toBe(204);
    expect((await patch('dora.explorer@idp.example', [{ op: 'replace', path: 'id', value: 'dora-2' }])).status).toBe(204);
    expect((await scim('GET', '/Users/dora.explorer@idp.example')).status).toBe(404);
    const moved = (await scim('GET', '/Users/dora-2')).body;
    expect(moved).toMatchObject({ id: 'dora-2', emails: [{ value: `dora2.${group.path}@example.com` }] });
  });

  it('PATCH errors: invalid path, unsupported op, values of the wrong type, no Operations', async () => {
    expectScimError(await patch('dora-2', [{ op: 'replace', path: 'emails[type eq', value: 'x' }]), 400, 'invalidPath');
    expectScimError(await patch('dora-2', [{ op: 'move', path: 'userName', value: 'x' }]), 400, 'invalidSyntax');
    expectScimError(await patch('dora-2', [{ op: 'replace', path: 'active', value: 'maybe' }]), 400, 'invalidValue');
    expectScimError(await patch('dora-2', [{ op: 'replace', path: 'userName', value: 42.5e300 * 1e10 }]), 400, 'invalidValue');
    expectScimError(await patch('dora-2', [{ op: 'remove' }]), 400, 'noTarget');
    expectScimError(await scim('PATCH', '/Users/dora-2', { body: { op: 'replace' } }), 400, 'invalidSyntax');
    // nothing changed by the failed requests (atomic)
    expect((await scim('GET', '/Users/dora-2')).body.active).toBe(true);
  });

  it('PATCH deprovisioning the last owner is refused and the owner keeps the membership', async () => {
    const path = fresh();
    const g = await setupScimGroup(server, path);
    const rootEmail = 'admin@example.com';
    expect((await scimClient(g)('POST', '/Users', { body: user('root-ext', 'root', rootEmail) })).status).toBe(201);
    const res = await scimClient(g)('PATCH', '/Users/root-ext', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } });
    expectScimError(res, 412);
    expect(res.body.detail).toContain('Cannot remove last group owner');
    expect(membershipOf(server.app.state, g.id, rootEmail)).toMatchObject({ access_level: 50 });
  });

  it('PUT replaces the resource (200), requires its attributes, and can deprovision', async () => {
    const res = await scim('PUT', '/Users/dora-2', {
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], id: 'dora-2', userName: 'dora', name: { givenName: 'Dora', familyName: 'Explorer' }, emails: [{ primary: true, value: `dora2.${group.path}@example.com`, type: 'work' }], active: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'dora-2', userName: 'dora', 'name.formatted': 'Dora Explorer', name: { givenName: 'Dora', familyName: 'Explorer' }, active: true });
    expectScimError(await scim('PUT', '/Users/dora-2', { body: { userName: 'dora' } }), 400, 'invalidValue');
    const off = await scim('PUT', '/Users/dora-2', { body: { ...res.body, active: false } });
    expect(off.body.active).toBe(false);
    expect(membershipOf(server.app.state, group.id, `dora2.${group.path}@example.com`)).toBeUndefined();
  });

  it('DELETE removes the membership and the identity; the resource then answers 404', async () => {
    expect((await scim('PATCH', '/Users/dora-2', { body: { Operations: [{ op: 'replace', path: 'active', value: true }] } })).status).toBe(204);
    const before = (await scim('GET', '/Users')).body.totalResults;
    const res = await scim('DELETE', '/Users/dora-2');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(membershipOf(server.app.state, group.id, `dora2.${group.path}@example.com`)).toBeUndefined();
    expectScimError(await scim('GET', '/Users/dora-2'), 404);
    expect((await scim('GET', '/Users')).body.totalResults).toBe(before - 1);
    // the user account stays; the same externalId can be provisioned again
    expect(findUserByEmail(server.app.state.users, `dora2.${group.path}@example.com`)).toBeDefined();
    expect((await scim('POST', '/Users', { body: user('dora-2', 'dora', `dora2.${group.path}@example.com`) })).status).toBe(201);
  });
});

describe('SCIM: discovery', () => {
  it('describes exactly what is supported', async () => {
    const group = await setupScimGroup(server, fresh());
    const scim = scimClient(group);
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toBe('application/scim+json');
    expect(config.body).toMatchObject({ patch: { supported: true }, bulk: { supported: false }, filter: { supported: true, maxResults: 100 }, sort: { supported: false }, etag: { supported: false }, changePassword: { supported: false } });
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'User', endpoint: '/Users', schema: 'urn:ietf:params:scim:schemas:core:2.0:User' }] });
    expect((await scim('GET', '/ResourceTypes/User')).body.id).toBe('User');
    const schemas = await scim('GET', '/Schemas');
    const attributes = schemas.body.Resources[0].attributes.map((a: { name: string }) => a.name);
    expect(attributes).toEqual(['userName', 'name', 'displayName', 'emails', 'active']);
    expect((await scim('GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:User')).status).toBe(200);
    expectScimError(await scim('GET', '/Schemas/urn:nope'), 404);
    expect((await scim('GET', '/ServiceProviderConfig', { token: null })).status).toBe(401);
  });
});

describe('members responses: group_saml_identity', () => {
  it('shows the active SSO identity to owners of an SSO-enabled group, null after deprovisioning, and nothing to others', async () => {
    const group = await setupScimGroup(server, fresh());
    const scim = scimClient(group);
    const created = await scim('POST', '/Users', { body: user('saml-ext-1', `samluser${seq}`, `samluser${seq}@example.com`) });
    expect(created.status).toBe(201);
    const userId = findUserByEmail(server.app.state.users, `samluser${seq}@example.com`)!.id;
    const member = await server.request('GET', `/api/v4/groups/${group.id}/members/${userId}`);
    expect(member.status).toBe(200);
    const provider = (await server.request('GET', `/api/v4/groups/${group.id}/saml_provider`)).body;
    expect(member.body.group_saml_identity).toEqual({ provider: 'group_saml', extern_uid: 'saml-ext-1', saml_provider_id: provider.id });
    const keys = Object.keys(member.body);
    expect(keys.indexOf('group_saml_identity')).toBe(keys.indexOf('expires_at') + 1);
    // the root owner has no SSO identity: null
    const list = await server.request('GET', `/api/v4/groups/${group.id}/members`);
    expect(list.body.find((m: { username: string }) => m.username === 'root').group_saml_identity).toBeNull();
    // a non-owner member does not see the key
    const token = await tokenFor(userId);
    const asMember = await server.request('GET', `/api/v4/groups/${group.id}/members/${userId}`, { token });
    expect(asMember.status).toBe(200);
    expect('group_saml_identity' in asMember.body).toBe(false);
    // deprovisioned: the membership is gone; re-provisioned: it is back with the identity
    await scim('PATCH', '/Users/saml-ext-1', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } });
    expect((await server.request('GET', `/api/v4/groups/${group.id}/members/${userId}`)).status).toBe(404);
    await scim('PATCH', '/Users/saml-ext-1', { body: { Operations: [{ op: 'replace', path: 'active', value: true }] } });
    expect((await server.request('GET', `/api/v4/groups/${group.id}/members/${userId}`)).body.group_saml_identity.extern_uid).toBe('saml-ext-1');
    // SAML disabled: the key disappears
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: false } });
    expect('group_saml_identity' in (await server.request('GET', `/api/v4/groups/${group.id}/members/${userId}`)).body).toBe(false);
  });
});

describe('SCIM while the group SAML provider is disabled', () => {
  it('works only when SSO is enabled: identities are not there, provisioning is refused, nothing changes', async () => {
    const group = await setupScimGroup(server, 'ssooff');
    const scim = scimClient(group);
    expect((await scim('POST', '/Users', { body: user('off-1', 'offy', 'offy@example.com') })).status).toBe(201);
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: false } });
    const before = server.app.position;
    const get = await scim('GET', '/Users/off-1');
    expectScimError(get, 404);
    expect(get.body.detail).toBe('Resource off-1 not found');
    expectScimError(await scim('PATCH', '/Users/off-1', { body: { Operations: [{ op: 'replace', path: 'active', value: false }] } }), 404);
    expectScimError(await scim('PUT', '/Users/off-1', { body: user('off-1', 'offy', 'offy@example.com') }), 404);
    expectScimError(await scim('DELETE', '/Users/off-1'), 404);
    const post = await scim('POST', '/Users', { body: user('off-2', 'offo', 'offo@example.com') });
    expectScimError(post, 412);
    expect(post.body.detail).toBe('SAML single sign-on is not enabled for this group');
    expect(server.app.position).toBe(before);
    // Enabled again, the identity is back as it was.
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: true } });
    expect(await scim('GET', '/Users/off-1')).toMatchObject({ status: 200, body: { id: 'off-1', active: true } });
  });
});

// EE `update_scim_user` (14.7): a PATCH runs the first branch that applies (deprovision, else reprovision, else the
// externalId, else the user's attributes), each answering 204; a failed save is 412 "Error updating <name> with {…}".
describe('SCIM: PATCH runs one branch of update_scim_user', () => {
  let group: ScimGroup;
  let scim: ScimClient;
  beforeAll(async () => {
    group = await setupScimGroup(server, fresh());
    scim = scimClient(group);
    expect((await scim('POST', '/Users', { body: user('pat-1', 'pat', `pat.${group.path}@example.com`) })).status).toBe(201);
  });
  const patch = (id: string, Operations: unknown[]) => scim('PATCH', `/Users/${id}`, { body: { Operations } });
  const email = () => `pat.${group.path}@example.com`;

  it('active false with a name: deprovisioned, the name unchanged; active true with a name: reprovisioned, the name unchanged', async () => {
    const before = (await scim('GET', '/Users/pat-1')).body['name.formatted'];
    const off = await patch('pat-1', [{ op: 'replace', path: 'name.formatted', value: 'Pat Renamed' }, { op: 'replace', path: 'active', value: false }]);
    expect(off.status).toBe(204);
    expect(off.text).toBe('');
    expect(membershipOf(server.app.state, group.id, email())).toBeUndefined();
    expect((await scim('GET', '/Users/pat-1')).body).toMatchObject({ active: false, 'name.formatted': before });
    const on = await patch('pat-1', [{ op: 'replace', path: 'active', value: true }, { op: 'replace', path: 'name.formatted', value: 'Pat Renamed' }]);
    expect(on.status).toBe(204);
    expect(membershipOf(server.app.state, group.id, email())).toMatchObject({ access_level: 30 });
    expect((await scim('GET', '/Users/pat-1')).body).toMatchObject({ active: true, 'name.formatted': before });
  });

  it('active true on an active identity with a name: the name changes', async () => {
    expect((await patch('pat-1', [{ op: 'replace', path: 'active', value: true }, { op: 'replace', path: 'name.formatted', value: 'Pat Renamed' }])).status).toBe(204);
    expect((await scim('GET', '/Users/pat-1')).body).toMatchObject({ active: true, 'name.formatted': 'Pat Renamed' });
  });

  it('an externalId with an e-mail: only the externalId changes (its own value too, then nothing changes)', async () => {
    const res = await patch('pat-1', [{ op: 'replace', path: 'emails[type eq "work"].value', value: `new.${group.path}@example.com` }, { op: 'replace', path: 'externalId', value: 'pat-2' }]);
    expect(res.status).toBe(204);
    expect((await scim('GET', '/Users/pat-2')).body).toMatchObject({ id: 'pat-2', emails: [{ value: email() }] });
    expect((await patch('pat-2', [{ op: 'replace', path: 'externalId', value: 'pat-2' }, { op: 'replace', path: 'name.formatted', value: 'Pat Again' }])).status).toBe(204);
    expect((await scim('GET', '/Users/pat-2')).body['name.formatted']).toBe('Pat Renamed');
  });

  it('a blank name or externalId fails the save: 412 "Error updating <name> with {…}"', async () => {
    const blankName = await patch('pat-2', [{ op: 'replace', path: 'name.formatted', value: ' ' }]);
    expectScimError(blankName, 412);
    expect(blankName.body.detail).toBe(
      `Error updating Pat Renamed with {"Operations"=>[{"op"=>"replace", "path"=>"name.formatted", "value"=>" "}], "version"=>"v2", "group"=>"${group.path}", "id"=>"pat-2"}`,
    );
    const blankId = await patch('pat-2', [{ op: 'replace', path: 'externalId', value: '' }]);
    expectScimError(blankId, 412);
    expect(blankId.body.detail).toContain('Error updating Pat Renamed with {');
    expect((await scim('GET', '/Users/pat-2')).body).toMatchObject({ id: 'pat-2', 'name.formatted': 'Pat Renamed' });
  });
});
