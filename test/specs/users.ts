/** Decider specs of the users module. */
import { forbidden, forbiddenMessage, notFound, unauthorized, conflict, validation } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const root = userCreated(1, 'root', { admin: true });
const alice = userCreated(2, 'alice');

export const userSpecs: Record<string, Spec> = {
  'an administrator creates an account with its personal namespace': {
    given: [root],
    as: 1,
    when: { type: 'CreateUser', username: 'bob', name: 'Bob', email: 'bob@example.com', password_digest: 'scrypt$x$y', public_email: 'bob@example.com' },
    then: [
      {
        type: 'UserCreated',
        data: { id: 2, username: 'bob', name: 'Bob', email: 'bob@example.com', public_email: 'bob@example.com', is_admin: false, bot: null, password_digest: 'scrypt$x$y', namespace_id: 102, created_at: AT, created_by_id: 1 },
      },
    ],
  },
  'pending invitations to the address become the new account’s memberships': {
    given: [root, groupCreated(3, 'team'), memberAdded(1, { group: 3 }, null, 30, { email: 'Bob@Example.com' })],
    when: { type: 'CreateUser', username: 'bob', name: 'Bob', email: 'bob@example.com', password_digest: null },
    then: [
      {
        type: 'UserCreated',
        data: { id: 2, username: 'bob', name: 'Bob', email: 'bob@example.com', public_email: null, is_admin: false, bot: null, password_digest: null, namespace_id: 102, created_at: AT, created_by_id: null },
      },
      { type: 'MemberInvitationAccepted', data: { id: 1, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: 'Bob@Example.com', at: AT } },
    ],
  },
  'only administrators create accounts': { given: [root, alice], as: 2, when: { type: 'CreateUser', username: 'bob', name: 'Bob', email: 'bob@example.com', password_digest: null }, error: forbidden() },
  'a taken e-mail is a conflict': { given: [root, alice], when: { type: 'CreateUser', username: 'bob', name: 'Bob', email: 'ALICE@example.com', password_digest: null }, error: conflict('Email has already been taken') },
  'a username taken by a group is a conflict': { given: [root, groupCreated(3, 'team')], when: { type: 'CreateUser', username: 'Team', name: 'T', email: 't@example.com', password_digest: null }, error: conflict('Username has already been taken') },
  'an administrator updates an account': {
    given: [root, alice],
    as: 1,
    when: { type: 'UpdateUser', id: 2, name: 'Alice A.', is_admin: true },
    then: [{ type: 'UserUpdated', data: { id: 2, name: 'Alice A.', is_admin: true, updated_at: AT } }],
  },
  'an e-mail is saved stripped and lower-cased (Devise)': {
    given: [root, alice],
    when: { type: 'UpdateUser', id: 2, email: ' Alice.New@Example.COM ' },
    then: [{ type: 'UserUpdated', data: { id: 2, email: 'alice.new@example.com', updated_at: AT } }],
  },
  'a public e-mail the account does not own is refused (User#owns_public_email)': {
    given: [root, alice],
    when: { type: 'UpdateUser', id: 2, public_email: 'someone@example.com' },
    error: validation({ public_email: ['is not an email you own'] }),
  },
  'an administrator deactivates an account without recent activity': { given: [root, alice], as: 1, when: { type: 'DeactivateUser', id: 2 }, then: [{ type: 'UserDeactivated', data: { id: 2, at: AT } }] },
  'an account active in the last 90 days is not deactivated': {
    given: [root, alice, { type: 'UserActivityRecorded', data: { id: 2, day: AT.slice(0, 10) } }],
    as: 1,
    when: { type: 'DeactivateUser', id: 2 },
    error: forbidden('The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated'),
  },
  'a blocked account is not deactivated': { given: [root, alice, { type: 'UserBlocked', data: { id: 2, at: AT } }], as: 1, when: { type: 'DeactivateUser', id: 2 }, error: forbidden('A blocked user cannot be deactivated by the API') },
  'a deactivated account is activated, not unblocked': {
    given: [root, alice, { type: 'UserDeactivated', data: { id: 2, at: AT } }],
    as: 1,
    when: { type: 'ActivateUser', id: 2 },
    then: [{ type: 'UserActivated', data: { id: 2, at: AT } }],
  },
  'unblocking a deactivated account is refused': {
    given: [root, alice, { type: 'UserDeactivated', data: { id: 2, at: AT } }],
    as: 1,
    when: { type: 'UnblockUser', id: 2 },
    error: forbidden('Deactivated users cannot be unblocked by the API'),
  },
  'updating an unknown account': { given: [root], when: { type: 'UpdateUser', id: 9, name: 'x' }, error: notFound('User') },
  'an administrator blocks an account': { given: [root, alice], as: 1, when: { type: 'BlockUser', id: 2 }, then: [{ type: 'UserBlocked', data: { id: 2, at: AT } }] },
  'blocking a blocked account changes nothing': { given: [root, alice, { type: 'UserBlocked', data: { id: 2, at: AT } }], as: 1, when: { type: 'BlockUser', id: 2 }, then: [] },
  'an administrator cannot block themselves': { given: [root], as: 1, when: { type: 'BlockUser', id: 1 }, error: forbidden('You cannot block yourself') },
  'an administrator unblocks an account': { given: [root, alice, { type: 'UserBlocked', data: { id: 2, at: AT } }], as: 1, when: { type: 'UnblockUser', id: 2 }, then: [{ type: 'UserUnblocked', data: { id: 2, at: AT } }] },
  'unblocking an active account changes nothing': { given: [root, alice], as: 1, when: { type: 'UnblockUser', id: 2 }, then: [] },
  'deleting an account takes the groups it alone owns, its personal projects and its memberships along': {
    given: [
      root,
      alice,
      userCreated(3, 'bob'),
      groupCreated(4, 'solo', { by: 2 }),
      memberAdded(1, { group: 4 }, 2, 50),
      projectCreated(1, 'mine', 102, { kind: 'user', by: 2 }),
      memberAdded(2, { project: 1 }, 2, 40),
      groupCreated(5, 'shared', { by: 3 }),
      memberAdded(3, { group: 5 }, 3, 50),
      memberAdded(4, { group: 5 }, 2, 30),
    ],
    as: 1,
    when: { type: 'DeleteUser', id: 2 },
    then: [
      { type: 'MemberRemoved', data: { id: 1, source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } },
      { type: 'GroupDeleted', data: { id: 4, at: AT } },
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Project', source_id: 1, user_id: 2, at: AT } },
      { type: 'ProjectDeleted', data: { id: 1, at: AT } },
      { type: 'MemberRemoved', data: { id: 4, source_type: 'Namespace', source_id: 5, user_id: 2, at: AT } },
      { type: 'UserDeleted', data: { id: 2, at: AT } },
    ],
  },
  // The platform's solo_owned_groups counts owners through their accounts: an invitation at Owner keeps no group alive.
  'an invitation at Owner does not keep a group its only account owner takes along': {
    given: [root, alice, groupCreated(4, 'solo', { by: 2 }), memberAdded(1, { group: 4 }, 2, 50), memberAdded(2, { group: 4 }, null, 50, { email: 'c@example.com' })],
    as: 1,
    when: { type: 'DeleteUser', id: 2 },
    then: [
      { type: 'MemberRemoved', data: { id: 1, source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } },
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Namespace', source_id: 4, user_id: null, at: AT } },
      { type: 'GroupDeleted', data: { id: 4, at: AT } },
      { type: 'UserDeleted', data: { id: 2, at: AT } },
    ],
  },
  'only administrators delete accounts': { given: [root, alice], as: 2, when: { type: 'DeleteUser', id: 1 }, error: forbidden() },
  'activity is recorded once a day': { given: [alice], when: { type: 'RecordUserActivity', id: 2 }, then: [{ type: 'UserActivityRecorded', data: { id: 2, day: '2026-01-01' } }] },
  'activity on a day already recorded changes nothing': {
    given: [alice, { type: 'UserActivityRecorded', data: { id: 2, day: '2026-01-01' } }],
    when: { type: 'RecordUserActivity', id: 2 },
    then: [],
  },
  'every command runs as an existing user': { given: [root], as: 7, when: { type: 'RecordUserActivity', id: 1 }, error: unauthorized },
  'a blocked user cannot act': { given: [root, alice, { type: 'UserBlocked', data: { id: 2, at: AT } }], as: 2, when: { type: 'RecordUserActivity', id: 2 }, error: forbidden('Your account has been blocked.') },
  // Identities (Users::UpdateService#assign_identity) and bans (Users::BanService, UnbanService).
  'an administrator gives an account an identity': {
    given: [root, alice],
    as: 1,
    when: { type: 'UpdateUser', id: 2, identity: { provider: 'ldapmain', extern_uid: 'uid=alice' } },
    // The identity alone changed: no UserUpdated for the account's own fields.
    then: [{ type: 'UserIdentitySet', data: { id: 2, provider: 'ldapmain', extern_uid: 'uid=alice', at: AT } }],
  },
  'an update that changes nothing writes nothing': {
    given: [root, alice],
    as: 1,
    when: { type: 'UpdateUser', id: 2, username: 'alice' },
    then: [],
  },
  'an extern_uid another account holds is taken': {
    given: [root, alice, userCreated(3, 'bob'), { type: 'UserIdentitySet', data: { id: 3, provider: 'ldapmain', extern_uid: 'uid=x', at: AT } }],
    as: 1,
    when: { type: 'UpdateUser', id: 2, identity: { provider: 'ldapmain', extern_uid: 'UID=X' } },
    error: validation({ extern_uid: ['has already been taken'] }),
  },
  'an administrator deletes an identity': {
    given: [root, alice, { type: 'UserIdentitySet', data: { id: 2, provider: 'ldapmain', extern_uid: 'uid=alice', at: AT } }],
    as: 1,
    when: { type: 'DeleteUserIdentity', id: 2, provider: 'ldapmain' },
    then: [{ type: 'UserIdentityRemoved', data: { id: 2, provider: 'ldapmain', at: AT } }],
  },
  'deleting an identity the account lacks': { given: [root, alice], as: 1, when: { type: 'DeleteUserIdentity', id: 2, provider: 'ldapmain' }, error: notFound('Identity') },
  'an administrator bans an active account': { given: [root, alice], as: 1, when: { type: 'BanUser', id: 2 }, then: [{ type: 'UserBanned', data: { id: 2, at: AT } }] },
  'only active accounts are banned': {
    given: [root, alice, { type: 'UserBlocked', data: { id: 2, at: AT } }],
    as: 1,
    when: { type: 'BanUser', id: 2 },
    error: forbiddenMessage('You cannot ban blocked users.'),
  },
  'an administrator unbans a banned account': {
    given: [root, alice, { type: 'UserBanned', data: { id: 2, at: AT } }],
    as: 1,
    when: { type: 'UnbanUser', id: 2 },
    then: [{ type: 'UserUnbanned', data: { id: 2, at: AT } }],
  },
  'only banned accounts are unbanned': { given: [root, alice], as: 1, when: { type: 'UnbanUser', id: 2 }, error: forbiddenMessage('You cannot unban active users.') },
  'only administrators ban': { given: [root, alice, userCreated(3, 'bob')], as: 2, when: { type: 'BanUser', id: 3 }, error: forbidden() },
  // Gitlab::PathRegex through the personal namespace's NamespacePathValidator (branch `reserved`).
  'a reserved username is refused on username': {
    given: [root],
    as: 1,
    when: { type: 'CreateUser', username: 'Dashboard', name: 'D', email: 'd@example.com', password_digest: null },
    error: validation({ username: ['Dashboard is a reserved name'] }),
  },
  'a username both taken (an old log’s account) and reserved is the 409': {
    given: [root, userCreated(2, 'admin')],
    as: 1,
    when: { type: 'CreateUser', username: 'Admin', name: 'A', email: 'a@example.com', password_digest: null },
    error: conflict('Username has already been taken'),
  },
  'a renamed account may not take a reserved username': {
    given: [root, alice],
    as: 1,
    when: { type: 'UpdateUser', id: 2, username: 'explore' },
    error: validation({ username: ['explore is a reserved name'] }),
  },
  'an account an old log holds under a reserved username keeps its other updates': {
    given: [root, userCreated(2, 'help')],
    as: 1,
    when: { type: 'UpdateUser', id: 2, username: 'help', name: 'H' },
    then: [{ type: 'UserUpdated', data: { id: 2, name: 'H', username: 'help', updated_at: AT } }],
  },
  // Namespace's `validates :path, length: { minimum: 2 }, if: :path_changed?`, moved onto username (set_username_errors).
  'a one-character username is too short': {
    given: [root],
    as: 1,
    when: { type: 'CreateUser', username: 'b', name: 'B', email: 'b@example.com', password_digest: null },
    error: validation({ username: ['is too short (minimum is 2 characters)'] }),
  },
  'a renamed account may not take a one-character username; a bad one has both messages': {
    given: [root, alice],
    as: 1,
    when: { type: 'UpdateUser', id: 2, username: '-' },
    error: validation({ username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.", 'is too short (minimum is 2 characters)'] }),
  },
  'an account an old log holds under a one-character username keeps its other updates': {
    given: [root, userCreated(2, 'h')],
    as: 1,
    when: { type: 'UpdateUser', id: 2, username: 'h', name: 'Harry' },
    then: [{ type: 'UserUpdated', data: { id: 2, name: 'Harry', username: 'h', updated_at: AT } }],
  },
};
