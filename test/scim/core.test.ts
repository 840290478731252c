/** SCIM decisions in the core: the events (with origin scim) and what they do to the projections. */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  directMembership,
  findScimIdentityByExternUid,
  findScimIdentityByUserName,
  findUserByEmail,
  foldLog,
  forgefold,
  scimIdentityCount,
  stateHash,
  usernameFor,
  type Actor,
  type ForgefoldCommand,
} from '@forgefold/core';
import { makeApp, system, userCommand } from '../core/fixtures.js';

const scim: Actor = { userId: null, origin: 'scim', requestId: 'req-1' };
const FINGERPRINT = 'a1b2c3d4e5f60718293a4b5c6d7e8f9011223344';

const setup = async () => {
  const t = await makeApp();
  await t.ok(system, userCommand('root', { is_admin: true }));
  await t.ok({ userId: 1, origin: 'api' }, { type: 'CreateGroup', name: 'acme', path: 'acme' });
  const groupId = t.app.state.sequences.namespace;
  await t.ok({ userId: 1, origin: 'api' }, { type: 'ConfigureSamlProvider', group_id: groupId, sso_url: 'https://idp.example/sso', certificate_fingerprint: FINGERPRINT, default_membership_role: 30 });
  await t.ok({ userId: 1, origin: 'api' }, { type: 'RotateScimToken', group_id: groupId, token_digest: 'a'.repeat(64) });
  return { ...t, groupId };
};

const provision = (groupId: number, uid: string, name: string, extra: Partial<Extract<ForgefoldCommand, { type: 'ProvisionScimIdentity' }>> = {}): ForgefoldCommand => ({
  type: 'ProvisionScimIdentity',
  group_id: groupId,
  extern_uid: uid,
  user_name: name,
  email: `${name}@example.com`,
  name: `${name} Person`,
  given_name: name,
  family_name: 'Person',
  active: true,
  ...extra,
});

describe('SCIM decisions', () => {
  it('provisioning emits the user, membership and identity events together, recorded with origin scim', async () => {
    const { ok, store, groupId } = await setup();
    const result = await ok(scim, provision(groupId, 'ext-1', 'alice'));
    expect(result.events.map((e) => e.type)).toEqual(['UserCreated', 'MemberAdded', 'ScimIdentityProvisioned']);
    for (const event of result.events) expect(event.metadata).toMatchObject({ origin: 'scim', actorId: null, requestId: 'req-1' });
    const all = await store.readAll(0, 1000);
    const rotated = all.find((e) => e.type === 'ScimTokenRotated')!;
    expect(rotated.data).toEqual({ group_id: groupId, token_digest: 'a'.repeat(64), at: expect.any(String) });
    expect(rotated.streamId).toBe(`group-${groupId}-scim`);
  });

  it('deprovision, reprovision, update and delete emit their events and keep the indexes right', async () => {
    const { ok, run, app, groupId } = await setup();
    await ok(scim, provision(groupId, 'ext-1', 'alice'));
    const userId = findUserByEmail(app.state.users, 'alice@example.com')!.id;
    const off = await ok(scim, { type: 'UpdateScimIdentity', group_id: groupId, extern_uid: 'EXT-1', changes: { active: false } });
    expect(off.events.map((e) => e.type)).toEqual(['MemberRemoved', 'ScimIdentityDeprovisioned']);
    expect(directMembership(app.state.members, 'Namespace', groupId, userId)).toBeUndefined();
    const on = await ok(scim, { type: 'UpdateScimIdentity', group_id: groupId, extern_uid: 'ext-1', changes: { active: true } });
    expect(on.events.map((e) => e.type)).toEqual(['MemberAdded', 'ScimIdentityReprovisioned']);
    const noop = await ok(scim, { type: 'UpdateScimIdentity', group_id: groupId, extern_uid: 'ext-1', changes: { active: true, user_name: 'alice' } });
    expect(noop.events).toEqual([]);
    const renamed = await ok(scim, { type: 'UpdateScimIdentity', group_id: groupId, extern_uid: 'ext-1', changes: { extern_uid: 'ext-9', user_name: 'alice.w@corp', name: 'Alice W' } });
    expect(renamed.events.map((e) => e.type)).toEqual(['UserUpdated', 'ScimIdentityUpdated']);
    expect(renamed.events[1]!.data).toMatchObject({ changed: ['externalId', 'userName', 'name.formatted'], extern_uid: 'ext-9', user_name: 'alice.w@corp' });
    expect(findScimIdentityByExternUid(app.state.scim, groupId, 'ext-1')).toBeUndefined();
    expect(findScimIdentityByUserName(app.state.scim, groupId, 'ALICE.W@CORP')!.extern_uid).toBe('ext-9');
    expect(findScimIdentityByUserName(app.state.scim, groupId, 'alice')).toBeUndefined();
    expect(E.isLeft(await run(scim, { type: 'DeleteScimIdentity', group_id: groupId, extern_uid: 'nope' }))).toBe(true);
    const deleted = await ok(scim, { type: 'DeleteScimIdentity', group_id: groupId, extern_uid: 'ext-9' });
    expect(deleted.events.map((e) => e.type)).toEqual(['MemberRemoved', 'ScimIdentityDeleted']);
    expect(scimIdentityCount(app.state.scim, groupId)).toBe(0);
  });

  it('deprovisioning removes subgroup and project memberships of the group too', async () => {
    const { ok, app, groupId } = await setup();
    await ok(scim, provision(groupId, 'ext-1', 'bob'));
    const userId = findUserByEmail(app.state.users, 'bob@example.com')!.id;
    await ok({ userId: 1, origin: 'api' }, { type: 'CreateGroup', name: 'sub', path: 'sub', parent_id: groupId });
    const subId = app.state.sequences.namespace;
    const added = await app.execute({ userId: 1, origin: 'api' }, { type: 'AddMember', source_type: 'Namespace', source_id: subId, user_id: userId, access_level: 40 } as unknown as ForgefoldCommand);
    expect(E.isRight(added)).toBe(true);
    expect(directMembership(app.state.members, 'Namespace', subId, userId)).toBeDefined();
    await ok(scim, { type: 'UpdateScimIdentity', group_id: groupId, extern_uid: 'ext-1', changes: { active: false } });
    expect(directMembership(app.state.members, 'Namespace', subId, userId)).toBeUndefined();
  });

  it('deleting the user or the group ends its identities', async () => {
    const { ok, app, groupId } = await setup();
    await ok(scim, provision(groupId, 'ext-1', 'carol'));
    await ok(scim, provision(groupId, 'ext-2', 'dave'));
    const carol = findUserByEmail(app.state.users, 'carol@example.com')!.id;
    await ok(system, { type: 'DeleteUser', id: carol });
    expect(findScimIdentityByExternUid(app.state.scim, groupId, 'ext-1')).toBeUndefined();
    expect(scimIdentityCount(app.state.scim, groupId)).toBe(1);
    await ok({ userId: 1, origin: 'api' }, { type: 'DeleteGroup', id: groupId } as ForgefoldCommand);
    expect(findScimIdentityByExternUid(app.state.scim, groupId, 'ext-2')).toBeUndefined();
  });

  it('replaying the log gives the same state as the live application', async () => {
    const { ok, app, store, groupId } = await setup();
    for (let i = 0; i < 30; i++) await ok(scim, provision(groupId, `ext-${i}`, `user${i}`));
    for (let i = 0; i < 30; i += 3) await ok(scim, { type: 'UpdateScimIdentity', group_id: groupId, extern_uid: `ext-${i}`, changes: { active: false, family_name: null } });
    for (let i = 1; i < 30; i += 5) await ok(scim, { type: 'DeleteScimIdentity', group_id: groupId, extern_uid: `ext-${i}` });
    const replayed = await foldLog({ decider: forgefold.decider, registry: forgefold.registry, store }, forgefold.decider.initialState(), 0, true);
    expect(await stateHash(replayed.state)).toBe(await stateHash(app.state));
  });

  it('only owners and administrators configure SAML; only top-level groups', async () => {
    const { ok, run, app, groupId } = await setup();
    await ok(system, userCommand('eve'));
    const eve: Actor = { userId: 2, origin: 'api' };
    expect(await run(eve, { type: 'RotateScimToken', group_id: groupId, token_digest: 'b'.repeat(64) })).toMatchObject({ left: { _tag: 'Forbidden' } });
    await ok({ userId: 1, origin: 'api' }, { type: 'CreateGroup', name: 'sub', path: 'sub', parent_id: groupId });
    expect(await run({ userId: 1, origin: 'api' }, { type: 'ConfigureSamlProvider', group_id: app.state.sequences.namespace, sso_url: 'https://x.example', certificate_fingerprint: FINGERPRINT })).toMatchObject({ left: { _tag: 'BadRequest' } });
  });

  it('derives usernames as the platform cleans paths', async () => {
    const { app, ok, groupId } = await setup();
    expect(usernameFor(app.state, 'jane.doe@example.com')).toBe('jane.doe');
    expect(usernameFor(app.state, '-x y.git')).toBe('xy');
    expect(usernameFor(app.state, '...')).toBe('blank');
    expect(usernameFor(app.state, 'root@x')).toBe('root1');
    expect(usernameFor(app.state, 'ACME')).toBe('ACME1');
    // EE ProvisioningService#valid_username: a reserved name gets the first counter that makes it valid.
    expect(usernameFor(app.state, 'admin@example.com')).toBe('admin1');
    expect(usernameFor(app.state, 'Robots.txt')).toBe('Robots.txt1');
    expect(usernameFor(app.state, 'edit@example.com')).toBe('edit');
    await ok(scim, provision(groupId, 'e', 'x', { user_name: 'root@idp', email: 'r@example.com' }));
    expect(findUserByEmail(app.state.users, 'r@example.com')!.username).toBe('root1');
  });
});
