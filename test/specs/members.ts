/** Decider specs of the members module. */
import { badRequest, conflict, forbidden, notFound, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const RECORD_NOT_FOUND = notFound(undefined, '404 Not found');
const alice = userCreated(1, 'alice');
const bob = userCreated(2, 'bob');
const carol = userCreated(3, 'carol');
const team = groupCreated(4, 'team', { by: 1 });
const owner = memberAdded(1, { group: 4 }, 1, 50, { by: 1 });
const base = [alice, bob, carol, team, owner];
const settingsChanged = (field: string, old: unknown, value: unknown): ForgefoldEvent => ({ type: 'SettingsChanged', data: { changes: [{ field, old, new: value }], actor_id: 1, at: AT } }) as ForgefoldEvent;
const sub = groupCreated(5, 'sub', { parent: 4 });
const app = projectCreated(1, 'app', 4);
const ref = (id: number, source: 'Namespace' | 'Project', sourceId: number, userId: number | null) => ({ id, source_type: source, source_id: sourceId, user_id: userId });
const added = (id: number, source: 'Namespace' | 'Project', sourceId: number, userId: number | null, level: number, extra: Partial<{ invite_email: string | null; expires_at: string | null; state: 'active' | 'awaiting'; ldap: boolean; created_by_id: number | null }> = {}): ForgefoldEvent => ({
  type: 'MemberAdded',
  data: { ...ref(id, source, sourceId, userId), invite_email: null, access_level: level, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1, ...extra },
});
const linked = (id: number, source: 'Namespace' | 'Project', sourceId: number, groupId: number, access: number, expires: string | null = null): ForgefoldEvent => ({
  type: 'GroupLinkCreated',
  data: { id, source_type: source, source_id: sourceId, group_id: groupId, group_access: access, expires_at: expires, created_at: AT, created_by_id: 1 },
});
const ldapLink: ForgefoldEvent = { type: 'LdapGroupLinkAdded', data: { group_id: 4, cn: 'devs', filter: null, group_access: 30, provider: 'ldapmain', at: AT } };

export const memberSpecs: Record<string, Spec> = {
  'an owner adds a member': {
    given: base,
    as: 1,
    when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 30, expires_at: '2026-03-01' },
    then: [added(2, 'Namespace', 4, 2, 30, { expires_at: '2026-03-01' })],
  },
  'a new member waits for approval once the user cap is reached': {
    given: [...base, { type: 'GroupUpdated', data: { id: 4, new_user_signups_cap: 1, updated_at: AT } }],
    as: 1,
    when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 30 },
    then: [added(2, 'Namespace', 4, 2, 30, { state: 'awaiting' })],
  },
  'an existing member is a conflict': { given: [...base, memberAdded(2, { group: 4 }, 2, 30)], as: 1, when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 30 }, error: conflict('Member already exists') },
  'a developer may not add members': { given: [...base, memberAdded(2, { group: 4 }, 2, 30)], as: 2, when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 3, access_level: 30 }, error: forbidden() },
  'a level below the inherited one': {
    given: [...base, sub, memberAdded(2, { group: 4 }, 2, 30)],
    as: 1,
    when: { type: 'AddMember', source_type: 'Namespace', source_id: 5, user_id: 2, access_level: 20 },
    error: validation({ access_level: ['should be greater than or equal to Developer inherited membership from group TEAM'] }),
  },
  'project bots stay in their project': {
    given: [...base, app, userCreated(6, 'project_1_bot', { bot: 'project_bot' }), memberAdded(2, { project: 1 }, 6, 30)],
    as: 1,
    when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 6, access_level: 30 },
    error: validation({ user_id: ['project bots cannot be added to other groups / projects'] }),
  },
  'a group token\'s bot stays in its group (a `project_bot` user on the platform too)': {
    given: [...base, app, userCreated(6, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 6, 30)],
    as: 1,
    when: { type: 'AddMember', source_type: 'Project', source_id: 1, user_id: 6, access_level: 30 },
    error: validation({ user_id: ['project bots cannot be added to other groups / projects'] }),
  },
  'a bot that holds no membership passes the uniqueness validation (`validates :user_id, uniqueness:, if: :project_bot?`)': {
    given: [...base, userCreated(6, 'project_1_bot', { bot: 'project_bot' })],
    as: 1,
    when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 6, access_level: 30 },
    then: [added(2, 'Namespace', 4, 6, 30)],
  },
  'a comma list leaves a bot\'s own membership as it is (`add_user` returns a member the actor may not update)': {
    given: [...base, userCreated(6, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 6, 30)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['6'], access_level: 10 },
    then: [],
    outcome: { failures: [] },
  },
  'a comma list refuses a bot that holds a membership elsewhere': {
    given: [...base, app, userCreated(6, 'project_1_bot', { bot: 'project_bot' }), memberAdded(2, { project: 1 }, 6, 30)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['6'], access_level: 30 },
    then: [],
    outcome: { failures: ['project_1_bot: User project bots cannot be added to other groups / projects'] },
  },
  'a bot removes its own membership (`target_is_self` enables `destroy_*_member`)': {
    given: [...base, app, userCreated(6, 'project_1_bot', { bot: 'project_bot' }), memberAdded(2, { project: 1 }, 6, 30)],
    as: 6,
    when: { type: 'RemoveMember', source_type: 'Project', source_id: 1, user_id: 6 },
    then: [{ type: 'MemberRemoved', data: { ...ref(2, 'Project', 1, 6), at: AT } }],
  },
  'an owner does not remove a bot (`~project_bot & can?(:admin_project_member)`)': {
    given: [...base, app, userCreated(6, 'project_1_bot', { bot: 'project_bot' }), memberAdded(2, { project: 1 }, 6, 30)],
    as: 1,
    when: { type: 'RemoveMember', source_type: 'Project', source_id: 1, user_id: 6 },
    error: forbidden(),
  },
  'a project bot\'s level is not for the members API (~project_bot & admin_project_member)': {
    given: [...base, app, userCreated(6, 'project_1_bot', { bot: 'project_bot' }), memberAdded(2, { project: 1 }, 6, 30)],
    as: 1,
    when: { type: 'UpdateMember', source_type: 'Project', source_id: 1, user_id: 6, access_level: 20 },
    error: forbidden(),
  },
  'groups synced from LDAP take no direct members': { given: [...base, ldapLink], as: 1, when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 30 }, error: forbidden() },
  'a source that does not exist': { given: base, as: 1, when: { type: 'AddMember', source_type: 'Project', source_id: 1, user_id: 2, access_level: 30 }, error: notFound('Project') },
  'an unknown user': { given: base, as: 1, when: { type: 'AddMember', source_type: 'Namespace', source_id: 4, user_id: 9, access_level: 30 }, error: notFound('User') },
  'a comma list adds and updates the ids\' users; usernames, unknown ids and items with blanks around them are dropped (`parse_users_list`)': {
    given: [...base, memberAdded(2, { group: 4 }, 3, 20)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['2', ' 3', 'carol', '99', 'nobody', '1', '2', '02'], access_level: 30 },
    then: [added(3, 'Namespace', 4, 2, 30)],
    // alice (1), the last owner: `add_user` returns her member unchanged (`last_owner` prevents `update_group_member`).
    outcome: { failures: [] },
  },
  'a comma list updates an id\'s existing member and takes a final newline (`/\\A\\d+\\Z/`)': {
    given: [...base, memberAdded(2, { group: 4 }, 3, 20)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['3\n', 'x'], access_level: 30 },
    then: [{ type: 'MemberAccessLevelChanged', data: { ...ref(2, 'Namespace', 4, 3), from: 20, to: 30, at: AT } }],
    outcome: { failures: [] },
  },
  'a comma list invites an unknown address and adds the user of a known one (any case), addresses first': {
    given: base,
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['3', 'new@example.org', 'BOB@Example.com', 'not-an-address', 'a@', ' x@example.org'], access_level: 30, expires_at: '2026-03-01' },
    then: [
      added(2, 'Namespace', 4, null, 30, { invite_email: 'new@example.org', expires_at: '2026-03-01' }),
      added(3, 'Namespace', 4, 2, 30, { expires_at: '2026-03-01' }),
      added(4, 'Namespace', 4, 3, 30, { expires_at: '2026-03-01' }),
    ],
    outcome: { failures: [] },
  },
  'a comma list\'s address of a member, of an access requester, or already invited fails the new row\'s uniqueness': {
    given: [...base, userCreated(6, 'dave'), memberAdded(2, { group: 4 }, 2, 30), memberAdded(3, { group: 4 }, null, 30, { email: 'Old@example.org' }), { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 6, at: AT } }],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['bob@example.com', 'old@example.org', 'dave@example.com', 'new@example.org', 'NEW@example.org'], access_level: 30 },
    then: [added(4, 'Namespace', 4, null, 30, { invite_email: 'new@example.org' })],
    outcome: {
      failures: [
        'bob: User already exists in source',
        "The member's email address has already been taken",
        'dave: User already exists in source',
        "The member's email address has already been taken",
      ],
    },
  },
  'a comma list naming a user by address and by id adds them once; the id\'s new row is not unique': {
    given: base,
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['2', 'bob@example.com'], access_level: 30 },
    then: [added(2, 'Namespace', 4, 2, 30)],
    outcome: { failures: ['bob: User already exists in source'] },
  },
  // `parse_users_list` indexes the rows of the ids' users (`members_and_requesters`) and `find_or_initialize_member_by_user`
  // gives an address of such a user that same row: the address updates it, and the id finds it again (review h-rv1).
  'a comma list naming a member by address and by id updates that member once, without failure': {
    given: [...base, memberAdded(2, { group: 4 }, 2, 30)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['2', 'BOB@example.com'], access_level: 40 },
    then: [{ type: 'MemberAccessLevelChanged', data: { ...ref(2, 'Namespace', 4, 2), from: 30, to: 40, at: AT } }],
    outcome: { failures: [] },
  },
  'a comma list naming an access requester by address and by id grants the request once, without failure': {
    given: [...base, { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } }],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['bob@example.com', '2'], access_level: 30 },
    then: [added(2, 'Namespace', 4, 2, 30)],
    outcome: { failures: [] },
  },
  'a comma list naming the last owner by address and by id leaves them as they are, without failure': {
    given: base,
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['alice@example.com', '1'], access_level: 30 },
    then: [],
    outcome: { failures: [] },
  },
  'a member reached by address and by id whose change is invalid fails twice (the same row is saved twice)': {
    given: [...base, app, memberAdded(2, { project: 1 }, 2, 30)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Project', source_id: 1, user_ids: ['2', 'bob@example.com'], access_level: 50 },
    then: [],
    outcome: { failures: ['bob: Access level is not included in the list', 'bob: Access level is not included in the list'] },
  },
  // Each row is saved before the next is looked at, and `last_owner` asks the database: once one owner is changed,
  // the other is the last one (review h-rv1; the list used to demote both and leave the group without an owner).
  'a comma list does not demote every owner: once the first is changed, the second is the last one': {
    given: [...base, memberAdded(2, { group: 4 }, 2, 50)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['1', '2'], access_level: 30 },
    then: [{ type: 'MemberAccessLevelChanged', data: { ...ref(1, 'Namespace', 4, 1), from: 50, to: 30, at: AT } }],
    outcome: { failures: [] },
  },
  // `member_attributes` assigns `expires_at: args[:expires_at]`, nil when the request gives none (review h-rv1).
  'a comma list without expires_at clears an existing member\'s expiry': {
    given: [...base, memberAdded(2, { group: 4 }, 2, 30, { expires: '2026-06-01' })],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['2', 'x'], access_level: 30 },
    then: [{ type: 'MemberExpirySet', data: { ...ref(2, 'Namespace', 4, 2), expires_at: null, at: AT } }],
    outcome: { failures: [] },
  },
  'a comma list\'s invitation is validated as a member (no prefix: no user)': {
    given: [...base, app],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Project', source_id: 1, user_ids: ['new@example.org', `${'a'.repeat(250)}@example.org`], access_level: 50 },
    then: [],
    outcome: {
      failures: ['Access level is not included in the list', "Access level is not included in the list and The member's email address is too long (maximum is 255 characters)"],
    },
  },
  'a comma list of more than 100 distinct items is refused whole': {
    given: base,
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: [...Array.from({ length: 100 }, (_, i) => `u${i}`), '2', '2'], access_level: 30 },
    then: [],
    outcome: { failures: [], error: 'Too many users specified (limit is 100)' },
  },
  'a comma list leaves the last owner as they are, for an administrator too (a prevent beats `admin`), and succeeds': {
    given: [...base, userCreated(9, 'root', { admin: true })],
    as: 9,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['1', '2'], access_level: 10 },
    then: [added(2, 'Namespace', 4, 2, 10, { created_by_id: 9 })],
    outcome: { failures: [] },
  },
  'the system (no current user: `can_update_member?` allows anything) changes even the last owner': {
    given: base,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['1'], access_level: 40 },
    then: [{ type: 'MemberAccessLevelChanged', data: { ...ref(1, 'Namespace', 4, 1), from: 50, to: 40, at: AT } }],
    outcome: { failures: [] },
  },
  'a comma list reports what `member.invalid?` finds in a member it leaves unchanged (an LDAP row below its inherited level)': {
    given: [...base, sub, memberAdded(2, { group: 5 }, 2, 30, { ldap: true }), memberAdded(3, { group: 4 }, 2, 40)],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 5, user_ids: ['2'], access_level: 50 },
    then: [],
    outcome: { failures: ['bob: Access level should be greater than or equal to Maintainer inherited membership from group TEAM'] },
  },
  'a member with two failures: their full messages as a sentence (`full_messages.to_sentence`)': {
    given: [...base, app],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Project', source_id: 1, user_ids: ['2'], access_level: 50, expires_at: '2020-01-01' },
    then: [],
    outcome: { failures: ['bob: Access level is not included in the list and Expires at cannot be a date in the past'] },
  },
  'an empty comma list (`",".split(",")` is empty)': { given: base, as: 1, when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: [], access_level: 30 }, then: [], outcome: { failures: [], error: 'No users specified.' } },
  'a comma list of blank items is not empty: nothing is added and nothing fails': { given: base, as: 1, when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: [' ', ''], access_level: 30 }, then: [], outcome: { failures: [] } },
  'an owner changes a member’s level and expiry': {
    given: [...base, memberAdded(2, { group: 4 }, 2, 30)],
    as: 1,
    when: { type: 'UpdateMember', source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 40, expires_at: '2026-06-01' },
    then: [
      { type: 'MemberAccessLevelChanged', data: { ...ref(2, 'Namespace', 4, 2), from: 30, to: 40, at: AT } },
      { type: 'MemberExpirySet', data: { ...ref(2, 'Namespace', 4, 2), expires_at: '2026-06-01', at: AT } },
    ],
  },
  'the last owner keeps their level': { given: base, as: 1, when: { type: 'UpdateMember', source_type: 'Namespace', source_id: 4, user_id: 1, access_level: 40 }, error: forbidden() },
  'updating a non-member': { given: base, as: 1, when: { type: 'UpdateMember', source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 40 }, error: RECORD_NOT_FOUND },
  'removing a member also removes their memberships below and the invitations they sent there': {
    given: [...base, sub, memberAdded(2, { group: 4 }, 2, 40), memberAdded(3, { group: 5 }, 2, 40), memberAdded(4, { group: 5 }, null, 30, { email: 'x@example.com', by: 2 })],
    as: 1,
    when: { type: 'RemoveMember', source_type: 'Namespace', source_id: 4, user_id: 2 },
    then: [
      { type: 'MemberRemoved', data: { ...ref(2, 'Namespace', 4, 2), at: AT } },
      { type: 'MemberRemoved', data: { ...ref(3, 'Namespace', 5, 2), at: AT, reason: 'parent_membership_removed' } },
      { type: 'MemberRemoved', data: { ...ref(4, 'Namespace', 5, null), at: AT, reason: 'inviter_removed' } },
    ],
  },
  'a member leaves on their own': {
    given: [...base, memberAdded(2, { group: 4 }, 2, 10)],
    as: 2,
    when: { type: 'RemoveMember', source_type: 'Namespace', source_id: 4, user_id: 2, skip_subresources: true },
    then: [{ type: 'MemberRemoved', data: { ...ref(2, 'Namespace', 4, 2), at: AT } }],
  },
  'the last owner is never removed': { given: base, as: 1, when: { type: 'RemoveMember', source_type: 'Namespace', source_id: 4, user_id: 1 }, error: forbidden() },
  'invitations: existing accounts are added, other addresses invited, failures reported by address': {
    given: base,
    as: 1,
    when: { type: 'InviteMembers', source_type: 'Namespace', source_id: 4, emails: ['new@example.com', 'BOB@example.com', 'bad', 'alice@example.com', 'new@example.com'], access_level: 30 },
    then: [added(2, 'Namespace', 4, null, 30, { invite_email: 'new@example.com' }), added(3, 'Namespace', 4, 2, 30)],
    outcome: { failures: { bad: 'Invite email is invalid', 'alice@example.com': 'User already exists in source' } },
  },
  'invitations: no address at all is the blank-invites failure of the whole request': {
    given: base,
    as: 1,
    when: { type: 'InviteMembers', source_type: 'Namespace', source_id: 4, emails: [], access_level: 30 },
    then: [],
    outcome: { failures: {}, error: 'Emails cannot be blank' },
  },
  'invitations: a requester or a member named by address fails the uniqueness (keyed by the primary address), an invited address the invite_email one': {
    given: [...base, userCreated(6, 'dave'), memberAdded(2, { group: 4 }, 2, 30), memberAdded(3, { group: 4 }, null, 30, { email: 'old@example.org' }), { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 6, at: AT } }],
    as: 1,
    when: { type: 'InviteMembers', source_type: 'Namespace', source_id: 4, emails: ['DAVE@example.com', 'Bob@Example.com', 'old@example.org', 'carol@example.com'], access_level: 30 },
    then: [added(4, 'Namespace', 4, 3, 30)],
    outcome: { failures: { 'dave@example.com': 'User already exists in source', 'bob@example.com': 'User already exists in source', 'old@example.org': "The member's email address has already been taken" } },
  },
  'invitations: the sign-up allowlist refuses other domains (a non-administrator inviter is told to ask one)': {
    given: [...base, userCreated(6, 'dave'), memberAdded(2, { group: 4 }, 6, 50), settingsChanged('domain_allowlist', [], ['example.com', '*.corp.example'])],
    as: 6,
    when: { type: 'InviteMembers', source_type: 'Namespace', source_id: 4, emails: ['a@EXAMPLE.com', 'b@x.corp.example', 'c@corp.example', 'bob@example.com'], access_level: 30 },
    then: [added(3, 'Namespace', 4, null, 30, { invite_email: 'a@EXAMPLE.com', created_by_id: 6 }), added(4, 'Namespace', 4, null, 30, { invite_email: 'b@x.corp.example', created_by_id: 6 }), added(5, 'Namespace', 4, 2, 30, { created_by_id: 6 })],
    outcome: { failures: { 'c@corp.example': 'User is not allowed for this group. Check with your administrator.' } },
  },
  'invitations: an enabled denylist refuses its domains; an administrator is told where the rule is': {
    given: [...base, app, userCreated(6, 'root', { admin: true }), settingsChanged('domain_denylist', [], ['spam.test']), settingsChanged('domain_denylist_enabled', false, true)],
    as: 6,
    when: { type: 'InviteMembers', source_type: 'Project', source_id: 1, emails: ['x@spam.test', 'y@ok.test'], access_level: 30 },
    then: [added(2, 'Project', 1, null, 30, { invite_email: 'y@ok.test', created_by_id: 6 })],
    outcome: { failures: { 'x@spam.test': 'User is not allowed for this project. Go to the &#39;Admin area &gt; Sign-up restrictions&#39;, and check the &#39;Domain denylist&#39;.' } },
  },
  'a comma list\'s new addresses meet the same sign-up rules (an allowlist present, a disabled denylist not consulted)': {
    given: [...base, settingsChanged('domain_denylist', [], ['spam.test']), settingsChanged('domain_allowlist', [], ['ok.test'])],
    as: 1,
    when: { type: 'AddMembers', source_type: 'Namespace', source_id: 4, user_ids: ['x@spam.test', 'y@ok.test', 'z@other.test'], access_level: 30 },
    then: [added(2, 'Namespace', 4, null, 30, { invite_email: 'y@ok.test' })],
    outcome: { failures: ['User is not allowed for this group. Check with your administrator.', 'User is not allowed for this group. Check with your administrator.'] },
  },
  'an invitation failing twice: the full messages as a sentence (InviteService `full_messages.to_sentence`)': {
    given: [...base, app],
    as: 1,
    when: { type: 'InviteMembers', source_type: 'Project', source_id: 1, emails: ['bob@example.com'], access_level: 50, expires_at: '2020-01-01' },
    then: [],
    outcome: { failures: { 'bob@example.com': 'Access level is not included in the list and Expires at cannot be a date in the past' } },
  },
  'an invitation’s level changes': {
    given: [...base, memberAdded(2, { group: 4 }, null, 30, { email: 'new@example.com' })],
    as: 1,
    when: { type: 'UpdateInvitation', source_type: 'Namespace', source_id: 4, email: 'NEW@example.com', access_level: 20 },
    then: [{ type: 'MemberAccessLevelChanged', data: { ...ref(2, 'Namespace', 4, null), from: 30, to: 20, at: AT } }],
  },
  'updating an unknown invitation': { given: base, as: 1, when: { type: 'UpdateInvitation', source_type: 'Namespace', source_id: 4, email: 'x@example.com', access_level: 20 }, error: notFound() },
  'an invitation is withdrawn': {
    given: [...base, memberAdded(2, { group: 4 }, null, 30, { email: 'new@example.com' })],
    as: 1,
    when: { type: 'RemoveInvitation', source_type: 'Namespace', source_id: 4, email: 'new@example.com' },
    then: [{ type: 'MemberRemoved', data: { ...ref(2, 'Namespace', 4, null), at: AT, reason: 'invitation_removed' } }],
  },
  'a group is shared with another group': {
    given: [...base, groupCreated(6, 'other', { visibility: 'internal' })],
    as: 1,
    when: { type: 'ShareGroup', group_id: 4, shared_with_group_id: 6, group_access: 20, expires_at: '2026-02-01' },
    then: [linked(1, 'Namespace', 4, 6, 20, '2026-02-01')],
  },
  'a group shared twice': {
    given: [...base, groupCreated(6, 'other', { visibility: 'internal' }), linked(1, 'Namespace', 4, 6, 20)],
    as: 1,
    when: { type: 'ShareGroup', group_id: 4, shared_with_group_id: 6, group_access: 20 },
    error: conflict('Shared group The group has already been shared with this group'),
  },
  'a group the actor cannot see is not found': { given: [...base, groupCreated(6, 'other')], as: 1, when: { type: 'ShareGroup', group_id: 4, shared_with_group_id: 6, group_access: 20 }, error: notFound(undefined, 'Not Found') },
  'a share ends': {
    given: [...base, groupCreated(6, 'other'), linked(1, 'Namespace', 4, 6, 20)],
    as: 1,
    when: { type: 'UnshareGroup', group_id: 4, shared_with_group_id: 6 },
    then: [{ type: 'GroupLinkRemoved', data: { id: 1, source_type: 'Namespace', source_id: 4, group_id: 6, at: AT } }],
  },
  'ending a share that does not exist': { given: base, as: 1, when: { type: 'UnshareGroup', group_id: 4, shared_with_group_id: 6 }, error: notFound('Group Link') },
  'a project is shared with a group': {
    given: [...base, app, groupCreated(6, 'other', { visibility: 'public' })],
    as: 1,
    when: { type: 'ShareProject', project_id: 1, group_id: 6, group_access: 30 },
    then: [linked(1, 'Project', 1, 6, 30)],
  },
  'a project shared twice': {
    given: [...base, app, groupCreated(6, 'other', { visibility: 'public' }), linked(1, 'Project', 1, 6, 30)],
    as: 1,
    when: { type: 'ShareProject', project_id: 1, group_id: 6, group_access: 30 },
    error: conflict('Group already shared with this group'),
  },
  'a project is not shared with its own group nor with one of its ancestors': {
    given: [...base, sub, projectCreated(1, 'app', 5)],
    as: 1,
    when: { type: 'ShareProject', project_id: 1, group_id: 4, group_access: 30 },
    error: conflict('Project cannot be shared with the group it is in or one of its ancestors.'),
  },
  'a project shared twice with its own group: both of the platform’s messages': {
    given: [...base, app, linked(1, 'Project', 1, 4, 30)],
    as: 1,
    when: { type: 'ShareProject', project_id: 1, group_id: 4, group_access: 30 },
    error: conflict('Group already shared with this group and Project cannot be shared with the group it is in or one of its ancestors.'),
  },
  'a project share ends': {
    given: [...base, app, groupCreated(6, 'other'), linked(1, 'Project', 1, 6, 30)],
    as: 1,
    when: { type: 'UnshareProject', project_id: 1, group_id: 6 },
    then: [{ type: 'GroupLinkRemoved', data: { id: 1, source_type: 'Project', source_id: 1, group_id: 6, at: AT } }],
  },
  'approving a member activates their awaiting memberships across the hierarchy': {
    given: [...base, sub, memberAdded(2, { group: 4 }, 2, 30, { state: 'awaiting' }), memberAdded(3, { group: 5 }, 2, 30, { state: 'awaiting' }), memberAdded(4, { group: 5 }, 3, 30, { state: 'awaiting' })],
    as: 1,
    when: { type: 'ApproveMember', group_id: 4, member_id: 2 },
    then: [
      { type: 'MemberApproved', data: { ...ref(2, 'Namespace', 4, 2), at: AT } },
      { type: 'MemberApproved', data: { ...ref(3, 'Namespace', 5, 2), at: AT } },
    ],
  },
  'approval is for top-level groups': { given: [...base, sub, memberAdded(2, { group: 5 }, 2, 30, { state: 'awaiting' })], as: 1, when: { type: 'ApproveMember', group_id: 5, member_id: 2 }, error: badRequest() },
  'approving everyone': {
    given: [...base, memberAdded(2, { group: 4 }, 2, 30, { state: 'awaiting' }), app, memberAdded(3, { project: 1 }, 3, 30, { state: 'awaiting' })],
    as: 1,
    when: { type: 'ApproveAllMembers', group_id: 4 },
    then: [
      { type: 'MemberApproved', data: { ...ref(2, 'Namespace', 4, 2), at: AT } },
      { type: 'MemberApproved', data: { ...ref(3, 'Project', 1, 3), at: AT } },
    ],
  },
  'only owners approve': { given: [...base, memberAdded(2, { group: 4 }, 2, 40)], as: 2, when: { type: 'ApproveAllMembers', group_id: 4 }, error: badRequest() },
  'an LDAP member stops following the directory': {
    given: [...base, ldapLink, memberAdded(2, { group: 4 }, 2, 30, { ldap: true })],
    as: 1,
    when: { type: 'SetMemberOverride', group_id: 4, user_id: 2, override: true },
    then: [{ type: 'MemberOverrideSet', data: { ...ref(2, 'Namespace', 4, 2), override: true, at: AT } }],
  },
  'a member not from LDAP has no override': { given: [...base, ldapLink, memberAdded(2, { group: 4 }, 2, 30)], as: 1, when: { type: 'SetMemberOverride', group_id: 4, user_id: 2, override: true }, error: forbidden() },
  'an LDAP group link is added': {
    given: base,
    as: 1,
    when: { type: 'AddLdapGroupLink', group_id: 4, cn: 'devs', group_access: 30, provider: 'ldapmain' },
    then: [ldapLink],
  },
  'an LDAP group link added twice': { given: [...base, ldapLink], as: 1, when: { type: 'AddLdapGroupLink', group_id: 4, cn: 'devs', group_access: 30, provider: 'ldapmain' }, error: conflict('Cn has already been taken') },
  'an LDAP group link is removed': {
    given: [...base, ldapLink],
    as: 1,
    when: { type: 'RemoveLdapGroupLink', group_id: 4, cn: 'devs' },
    then: [{ type: 'LdapGroupLinkRemoved', data: { group_id: 4, cn: 'devs', filter: null, provider: 'ldapmain', at: AT } }],
  },
  'removing an LDAP link that does not exist': { given: base, as: 1, when: { type: 'RemoveLdapGroupLink', group_id: 4, cn: 'devs' }, error: notFound(undefined, 'Linked LDAP group not found') },
  'the directory sync adds, updates and removes LDAP members (overridden ones stay)': {
    given: [...base, userCreated(6, 'dave'), userCreated(7, 'erin'), ldapLink, memberAdded(2, { group: 4 }, 3, 20, { ldap: true }), memberAdded(3, { group: 4 }, 6, 20, { ldap: true }), memberAdded(4, { group: 4 }, 7, 20, { ldap: true }), { type: 'MemberOverrideSet', data: { ...ref(4, 'Namespace', 4, 7), override: true, at: AT } }],
    as: 1,
    when: { type: 'SyncLdapGroup', group_id: 4, directory: [{ provider: 'ldapmain', cn: 'devs', user_ids: [2, 3, 99] }] },
    then: [
      added(5, 'Namespace', 4, 2, 30, { ldap: true }),
      { type: 'MemberAccessLevelChanged', data: { ...ref(2, 'Namespace', 4, 3), from: 20, to: 30, at: AT, reason: 'ldap_sync' } },
      { type: 'MemberRemoved', data: { ...ref(3, 'Namespace', 4, 6), at: AT, reason: 'ldap_sync' } },
    ],
  },
  'the directory sync does not take every owner away: once one is demoted, the other is the last one (review h-rv1)': {
    given: [...base, ldapLink, memberAdded(2, { group: 4 }, 2, 50, { ldap: true })],
    as: 1,
    when: { type: 'SyncLdapGroup', group_id: 4, directory: [{ provider: 'ldapmain', cn: 'devs', user_ids: [1] }] },
    then: [{ type: 'MemberAccessLevelChanged', data: { ...ref(1, 'Namespace', 4, 1), from: 50, to: 30, at: AT, reason: 'ldap_sync' } }],
  },
  'a billable member is removed from the whole hierarchy': {
    given: [...base, app, memberAdded(2, { group: 4 }, 2, 30), memberAdded(3, { project: 1 }, 2, 30)],
    as: 1,
    when: { type: 'RemoveBillableMember', group_id: 4, user_id: 2 },
    then: [
      { type: 'MemberRemoved', data: { ...ref(2, 'Namespace', 4, 2), at: AT, reason: 'billable_member_removed' } },
      { type: 'MemberRemoved', data: { ...ref(3, 'Project', 1, 2), at: AT, reason: 'billable_member_removed' } },
    ],
  },
  'billable members belong to top-level groups': { given: [...base, sub], as: 1, when: { type: 'RemoveBillableMember', group_id: 5, user_id: 2 }, error: badRequest('Invalid group provided, must be top-level') },
  'a user without memberships there': { given: base, as: 1, when: { type: 'RemoveBillableMember', group_id: 4, user_id: 2 }, error: badRequest('No member found for the given user_id') },
  'memberships and shares end on their expiry day, the last owner of a top-level group never': {
    given: [
      ...base,
      memberAdded(2, { group: 4 }, 2, 30, { expires: '2026-01-01' }),
      memberAdded(3, { group: 4 }, 3, 30, { expires: '2026-01-02' }),
      { type: 'MemberExpirySet', data: { ...ref(1, 'Namespace', 4, 1), expires_at: '2025-12-31', at: AT } },
      groupCreated(6, 'other'),
      linked(1, 'Namespace', 6, 4, 20, '2025-12-30'),
    ],
    when: { type: 'ExpireMemberships' },
    then: [
      { type: 'MemberExpired', data: { ...ref(2, 'Namespace', 4, 2), expires_at: '2026-01-01', at: AT } },
      { type: 'GroupLinkExpired', data: { id: 1, source_type: 'Namespace', source_id: 6, group_id: 4, expires_at: '2025-12-30', at: AT } },
    ],
  },
  // Access requests (lib/api/access_requests.rb)
  'a user who can read a group asks for access': {
    given: [alice, bob, groupCreated(4, 'team', { by: 1, visibility: 'public' }), owner],
    as: 2,
    when: { type: 'RequestAccess', source_type: 'Namespace', source_id: 4 },
    then: [{ type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } }],
  },
  'a token\'s bot does not ask for access elsewhere: its request row fails the bot uniqueness (400)': {
    given: [alice, bob, groupCreated(4, 'team', { by: 1, visibility: 'public' }), owner, app, userCreated(6, 'project_1_bot', { bot: 'project_bot' }), memberAdded(2, { project: 1 }, 6, 30), groupCreated(7, 'open', { by: 1, visibility: 'public' })],
    as: 6,
    when: { type: 'RequestAccess', source_type: 'Namespace', source_id: 7 },
    error: validation({ user_id: ['project bots cannot be added to other groups / projects'] }),
  },
  'a bot\'s second request: both uniqueness messages, in the model\'s order': {
    given: [alice, groupCreated(4, 'team', { by: 1, visibility: 'public' }), owner, groupCreated(7, 'open', { by: 1, visibility: 'public' }), userCreated(6, 'group_9_bot', { bot: 'group_bot' }),
      { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 7, user_id: 6, at: AT } }, { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 6, at: AT } }],
    as: 6,
    when: { type: 'RequestAccess', source_type: 'Namespace', source_id: 4 },
    error: validation({ user_id: ['already exists in source', 'project bots cannot be added to other groups / projects'] }),
  },
  'a bot that holds nothing asks for access; its pending request then counts as held (a Member row)': {
    given: [alice, groupCreated(4, 'team', { by: 1, visibility: 'public' }), owner, userCreated(6, 'group_9_bot', { bot: 'group_bot' }), { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 6, at: AT } }, groupCreated(7, 'open', { by: 1 }), memberAdded(2, { group: 7 }, 1, 50, { by: 1 })],
    as: 1,
    when: { type: 'AddMember', source_type: 'Namespace', source_id: 7, user_id: 6, access_level: 30 },
    error: validation({ user_id: ['project bots cannot be added to other groups / projects'] }),
  },
  'approving a bot\'s request (the same row): valid': {
    given: [alice, groupCreated(4, 'team', { by: 1, visibility: 'public' }), owner, userCreated(6, 'group_9_bot', { bot: 'group_bot' }), { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 6, at: AT } }],
    as: 1,
    when: { type: 'ApproveAccessRequest', source_type: 'Namespace', source_id: 4, user_id: 6 },
    then: [
      { type: 'AccessRequestApproved', data: { source_type: 'Namespace', source_id: 4, user_id: 6, access_level: 30, at: AT } },
      memberAdded(2, { group: 4 }, 6, 30, { by: 1 }) as ForgefoldEvent,
    ],
  },
  'a member does not ask for access': { given: [...base, memberAdded(2, { group: 4 }, 2, 30)], as: 2, when: { type: 'RequestAccess', source_type: 'Namespace', source_id: 4 }, error: forbidden() },
  'an owner approves a request: it becomes a Developer membership': {
    given: [...base, { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } }],
    as: 1,
    when: { type: 'ApproveAccessRequest', source_type: 'Namespace', source_id: 4, user_id: 2 },
    then: [
      { type: 'AccessRequestApproved', data: { source_type: 'Namespace', source_id: 4, user_id: 2, access_level: 30, at: AT } },
      memberAdded(2, { group: 4 }, 2, 30, { by: 1 }) as ForgefoldEvent,
    ],
  },
  'approving a request that is not there': { given: base, as: 1, when: { type: 'ApproveAccessRequest', source_type: 'Namespace', source_id: 4, user_id: 2 }, error: RECORD_NOT_FOUND },
  'the requester withdraws a request': {
    given: [...base, { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } }],
    as: 2,
    when: { type: 'DenyAccessRequest', source_type: 'Namespace', source_id: 4, user_id: 2 },
    then: [{ type: 'AccessRequestDenied', data: { source_type: 'Namespace', source_id: 4, user_id: 2, at: AT, reason: 'withdrawn' } }],
  },
  'only administrators of the source deny another user’s request': {
    given: [...base, { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } }],
    as: 3,
    when: { type: 'DenyAccessRequest', source_type: 'Namespace', source_id: 4, user_id: 2 },
    error: forbidden(),
  },
};
