/** Decider specs of the tokens module. */
import { badRequest, forbidden, notFound, unauthorized, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const root = userCreated(1, 'root', { admin: true });
const alice = userCreated(2, 'alice');
const digest = 'd'.repeat(64);
const tokenCreated = (id: number, userId: number, kind: 'personal' | 'impersonation' = 'personal') =>
  ({
    type: 'AccessTokenCreated',
    data: { id, kind, user_id: userId, name: 'ci', scopes: ['api'], created_at: AT, expires_at: null, token_digest: `${digest}${id}`, resource_type: null, resource_id: null, access_level: null, created_by_id: 1 },
  }) as const;

/** A group's access token and its bot member; what revoking it writes. */
const groupBotToken: ForgefoldEvent[] = [
  root,
  groupCreated(3, 'team'),
  userCreated(4, 'group_3_bot', { bot: 'group_bot' }),
  memberAdded(1, { group: 3 }, 4, 30),
  { type: 'AccessTokenCreated', data: { id: 1, kind: 'group', user_id: 4, name: 'x', scopes: ['api'], created_at: AT, expires_at: null, token_digest: digest, resource_type: 'group', resource_id: 3, access_level: 30, created_by_id: 1 } },
];
const botTokenRevoked: ForgefoldEvent[] = [
  { type: 'AccessTokenRevoked', data: { id: 1, user_id: 4, at: AT } },
  { type: 'MemberRemoved', data: { id: 1, source_type: 'Namespace', source_id: 3, user_id: 4, at: AT } },
  { type: 'UserDeleted', data: { id: 4, at: AT } },
];

export const tokenSpecs: Record<string, Spec> = {
  'an administrator creates a personal access token': {
    given: [root, alice],
    as: 1,
    when: { type: 'CreatePersonalAccessToken', user_id: 2, name: 'ci', scopes: ['api', 'read_user'], expires_at: '2026-02-01', token_digest: digest, impersonation: false },
    then: [
      {
        type: 'AccessTokenCreated',
        data: { id: 1, kind: 'personal', user_id: 2, name: 'ci', scopes: ['api', 'read_user'], created_at: AT, expires_at: '2026-02-01', token_digest: digest, resource_type: null, resource_id: null, access_level: null, created_by_id: 1 },
      },
    ],
  },
  'a token cannot expire in the past': {
    given: [root, alice],
    as: 1,
    when: { type: 'CreatePersonalAccessToken', user_id: 2, name: 'ci', scopes: ['api'], expires_at: '2025-12-31', token_digest: digest, impersonation: true },
    error: validation({ expires_at: ['cannot be a date in the past'] }),
  },
  'only administrators create tokens for users': {
    given: [root, alice],
    as: 2,
    when: { type: 'CreatePersonalAccessToken', user_id: 2, name: 'ci', scopes: ['api'], expires_at: null, token_digest: digest, impersonation: false },
    error: forbidden(),
  },
  'a token for an unknown user': { given: [root], as: 1, when: { type: 'CreatePersonalAccessToken', user_id: 5, name: 'ci', scopes: ['api'], expires_at: null, token_digest: digest, impersonation: false }, error: notFound('User') },
  'the owner revokes their token': { given: [root, alice, tokenCreated(1, 2)], as: 2, when: { type: 'RevokePersonalAccessToken', id: 1 }, then: [{ type: 'AccessTokenRevoked', data: { id: 1, user_id: 2, at: AT } }] },
  'someone else’s token is not theirs to revoke': { given: [root, alice, userCreated(3, 'bob'), tokenCreated(1, 3)], as: 2, when: { type: 'RevokePersonalAccessToken', id: 1 }, error: forbidden() },
  // `revoke!` is `update!(revoked: true)`: again on a revoked token it succeeds and writes nothing (204).
  'a first use records last_used_at': {
    given: [root, alice, tokenCreated(1, 2)],
    when: { type: 'RecordAccessTokenUse', id: 1 },
    then: [{ type: 'AccessTokenUsed', data: { id: 1, user_id: 2, at: AT } }],
  },
  'a use within a day of the last one records nothing (LastUsedService#update?)': {
    given: [root, alice, tokenCreated(1, 2), { type: 'AccessTokenUsed', data: { id: 1, user_id: 2, at: new Date(Date.parse(AT) - 86_400_000 + 1).toISOString() } }],
    when: { type: 'RecordAccessTokenUse', id: 1 },
    then: [],
  },
  'a use a day after the last one records it again': {
    given: [root, alice, tokenCreated(1, 2), { type: 'AccessTokenUsed', data: { id: 1, user_id: 2, at: new Date(Date.parse(AT) - 86_400_000).toISOString() } }],
    when: { type: 'RecordAccessTokenUse', id: 1 },
    then: [{ type: 'AccessTokenUsed', data: { id: 1, user_id: 2, at: AT } }],
  },
  'a revoked token is revoked once': {
    given: [root, alice, tokenCreated(1, 2), { type: 'AccessTokenRevoked', data: { id: 1, user_id: 2, at: AT } }],
    as: 1,
    when: { type: 'RevokePersonalAccessToken', id: 1 },
    then: [],
  },
  'an impersonation token is revoked where personal ones are (no kind asked)': {
    given: [root, alice, tokenCreated(1, 2, 'impersonation')],
    as: 2,
    when: { type: 'RevokePersonalAccessToken', id: 1 },
    then: [{ type: 'AccessTokenRevoked', data: { id: 1, user_id: 2, at: AT } }],
  },
  'an impersonation token is not found as a personal one of another user': {
    given: [root, alice, tokenCreated(1, 2, 'impersonation')],
    as: 1,
    when: { type: 'RevokePersonalAccessToken', id: 1, user_id: 1, impersonation: true },
    error: notFound('Impersonation Token'),
  },
  'a project maintainer creates a project access token: a bot member and its token': {
    given: [root, alice, groupCreated(3, 'team'), memberAdded(1, { group: 3 }, 2, 40), projectCreated(1, 'app', 3)],
    as: 2,
    when: { type: 'CreateResourceAccessToken', resource_type: 'project', resource_id: 1, name: 'deploy', scopes: ['read_api'], access_level: 30, expires_at: null, token_digest: digest, email_domain: 'example.com' },
    then: [
      {
        type: 'UserCreated',
        data: { id: 3, username: 'project_1_bot', name: 'deploy', email: 'project_1_bot@noreply.example.com', public_email: null, is_admin: false, bot: 'project_bot', password_digest: null, namespace_id: 103, created_at: AT, created_by_id: 2 },
      },
      { type: 'MemberAdded', data: { id: 2, source_type: 'Project', source_id: 1, user_id: 3, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 2 } },
      {
        type: 'AccessTokenCreated',
        data: { id: 1, kind: 'project', user_id: 3, name: 'deploy', scopes: ['read_api'], created_at: AT, expires_at: null, token_digest: digest, resource_type: 'project', resource_id: 1, access_level: 30, created_by_id: 2 },
      },
    ],
  },
  'a group maintainer may not manage group access tokens (owners do)': {
    given: [root, alice, groupCreated(3, 'team'), memberAdded(1, { group: 3 }, 2, 40)],
    as: 2,
    when: { type: 'CreateResourceAccessToken', resource_type: 'group', resource_id: 3, name: 'x', scopes: ['api'], access_level: 30, expires_at: null, token_digest: digest, email_domain: 'example.com' },
    error: forbidden(),
  },
  'a resource token’s bot mints no token (project_bot_access prevents create_resource_access_tokens)': {
    // An Owner-level bot: the group's owners may create tokens; its bot may not.
    given: [root, groupCreated(3, 'team'), userCreated(4, 'group_3_bot', { bot: 'group_bot' }), memberAdded(1, { group: 3 }, 4, 50)],
    as: 4,
    when: { type: 'CreateResourceAccessToken', resource_type: 'group', resource_id: 3, name: 'more', scopes: ['api'], access_level: 30, expires_at: null, token_digest: 'e'.repeat(64), email_domain: 'example.com' },
    error: badRequest('User does not have permission to create group access token'),
  },
  'a project token is not an Owner (a project has no Owner members)': {
    given: [root, groupCreated(3, 'team'), projectCreated(1, 'app', 3)],
    as: 1,
    when: { type: 'CreateResourceAccessToken', resource_type: 'project', resource_id: 1, name: 'x', scopes: ['api'], access_level: 50, expires_at: null, token_digest: digest, email_domain: 'example.com' },
    error: badRequest('Could not provision owner access to project access token'),
  },
  'revoking a resource token removes and deletes its bot': {
    given: groupBotToken,
    as: 1,
    when: { type: 'RevokeResourceAccessToken', resource_type: 'group', resource_id: 3, id: 1 },
    then: botTokenRevoked,
  },
  'a resource token revoked before is not found (its bot is gone), and nothing is deleted again': {
    given: [...groupBotToken, ...botTokenRevoked],
    as: 1,
    when: { type: 'RevokeResourceAccessToken', resource_type: 'group', resource_id: 3, id: 1 },
    error: notFound('Group Access Token'),
  },
  'a resource token of another resource is not found': {
    given: [root, groupCreated(3, 'team'), projectCreated(1, 'app', 3), tokenCreated(1, 1)],
    as: 1,
    when: { type: 'RevokeResourceAccessToken', resource_type: 'project', resource_id: 1, id: 1 },
    error: notFound('Project Access Token'),
  },
  'the password grant issues an OAuth token and records the sign-in': {
    given: [alice],
    when: { type: 'IssueOAuthToken', user_id: 2, scopes: ['api'], token_digest: 'a', refresh_digest: 'r', expires_in: 7200 },
    then: [
      { type: 'OAuthTokenIssued', data: { id: 1, user_id: 2, scopes: ['api'], token_digest: 'a', refresh_digest: 'r', expires_in: 7200, created_at: AT } },
      { type: 'UserSignedIn', data: { id: 2, at: AT } },
    ],
  },
  'the password grant for an unknown user': { when: { type: 'IssueOAuthToken', user_id: 2, scopes: ['api'], token_digest: 'a', refresh_digest: 'r', expires_in: 7200 }, error: unauthorized },
  'a refresh revokes the old token and issues a new one with its scopes': {
    given: [alice, { type: 'OAuthTokenIssued', data: { id: 1, user_id: 2, scopes: ['read_api'], token_digest: 'a', refresh_digest: 'r', expires_in: 7200, created_at: AT } }],
    when: { type: 'RefreshOAuthToken', refresh_digest: 'r', token_digest: 'b', new_refresh_digest: 's', expires_in: 60 },
    then: [
      { type: 'OAuthTokenRevoked', data: { id: 1, user_id: 2, at: AT } },
      { type: 'OAuthTokenIssued', data: { id: 2, user_id: 2, scopes: ['read_api'], token_digest: 'b', refresh_digest: 's', expires_in: 60, created_at: AT } },
    ],
  },
  'an unknown refresh token': { given: [alice], when: { type: 'RefreshOAuthToken', refresh_digest: 'r', token_digest: 'b', new_refresh_digest: 's', expires_in: 60 }, error: unauthorized },
};
