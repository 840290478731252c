/** Decider specs of the groups module. */
import { forbidden, notFound, validation } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const alice = userCreated(1, 'alice');
const bob = userCreated(2, 'bob');
const team = groupCreated(3, 'team', { by: 1 });
const owner = memberAdded(1, { group: 3 }, 1, 50, { by: 1 });

/** A GroupCreated event under another name (an old log's group, named before the name rule was checked). */
const named = (event: ReturnType<typeof groupCreated>, name: string): ReturnType<typeof groupCreated> => ({ ...event, data: { ...(event.data as object), name } }) as ReturnType<typeof groupCreated>;
const GROUP_NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";
const HTML_SAFETY = 'cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).';

const locked = (event: ReturnType<typeof groupCreated>): ReturnType<typeof groupCreated> => ({ ...event, data: { ...(event.data as object), share_with_group_lock: true } }) as ReturnType<typeof groupCreated>;

export const groupSpecs: Record<string, Spec> = {
  'the creation levels and the share lock are recorded when not the defaults': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: 'Team', path: 'team', project_creation_level: 2, subgroup_creation_level: 0, share_with_group_lock: true },
    then: [
      { type: 'GroupCreated', data: { id: 102, name: 'Team', path: 'team', parent_id: null, visibility: 'private', description: '', request_access_enabled: true, subgroup_creation_level: 0, share_with_group_lock: true, created_at: AT, created_by_id: 1 } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Namespace', source_id: 102, user_id: 1, invite_email: null, access_level: 50, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1 } },
    ],
  },
  'a subgroup of a locked group is locked (sync_share_with_group_lock_with_parent)': {
    given: [locked(groupCreated(3, 'team'))],
    when: { type: 'CreateGroup', name: 'Sub', path: 'sub', parent_id: 3 },
    then: [{ type: 'GroupCreated', data: { id: 4, name: 'Sub', path: 'sub', parent_id: 3, visibility: 'private', description: '', request_access_enabled: true, share_with_group_lock: true, created_at: AT, created_by_id: null } }],
  },
  'a lock set on a group locks every group below not yet locked': {
    given: [alice, team, owner, groupCreated(4, 'a', { parent: 3 }), locked(groupCreated(5, 'b', { parent: 4 })), groupCreated(6, 'c', { parent: 5 })],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, share_with_group_lock: true },
    then: [
      { type: 'GroupUpdated', data: { id: 3, share_with_group_lock: true, updated_at: AT } },
      { type: 'GroupUpdated', data: { id: 4, share_with_group_lock: true, updated_at: AT } },
      { type: 'GroupUpdated', data: { id: 6, share_with_group_lock: true, updated_at: AT } },
    ],
  },
  'a maintainer creates no subgroup where only owners may': {
    given: [alice, bob, { ...team, data: { ...(team.data as object), subgroup_creation_level: 0 } } as ReturnType<typeof groupCreated>, owner, memberAdded(2, { group: 3 }, 2, 40)],
    as: 2,
    when: { type: 'CreateGroup', name: 'Sub', path: 'sub', parent_id: 3 },
    error: forbidden(),
  },
  'the creator of a group owns it': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: 'Team', path: 'team', visibility: 'internal', description: 'd' },
    then: [
      { type: 'GroupCreated', data: { id: 102, name: 'Team', path: 'team', parent_id: null, visibility: 'internal', description: 'd', request_access_enabled: true, created_at: AT, created_by_id: 1 } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Namespace', source_id: 102, user_id: 1, invite_email: null, access_level: 50, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1 } },
    ],
  },
  'the system creates groups without an owner': {
    when: { type: 'CreateGroup', name: 'Team', path: 'team' },
    then: [{ type: 'GroupCreated', data: { id: 1, name: 'Team', path: 'team', parent_id: null, visibility: 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: null } }],
  },
  'an account that may not create groups creates no top-level group (can_create_group)': {
    given: [userCreated(1, 'alice', { can_create_group: false })],
    as: 1,
    when: { type: 'CreateGroup', name: 'Team', path: 'team' },
    error: forbidden(),
  },
  'an external account creates no top-level group': {
    given: [userCreated(1, 'alice', { external: true })],
    as: 1,
    when: { type: 'CreateGroup', name: 'Team', path: 'team' },
    error: forbidden(),
  },
  'a subgroup needs maintainer access to its parent': { given: [alice, bob, team, owner, memberAdded(2, { group: 3 }, 2, 30)], as: 2, when: { type: 'CreateGroup', name: 'Sub', path: 'sub', parent_id: 3 }, error: forbidden() },
  'a subgroup cannot be more visible than its parent': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'CreateGroup', name: 'Sub', path: 'sub', parent_id: 3, visibility: 'public' },
    error: { _tag: 'BadRequest', message: 'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a private visibility."]}' },
  },
  'a taken path': { given: [alice, team], as: 1, when: { type: 'CreateGroup', name: 'x', path: 'TEAM' }, error: { _tag: 'BadRequest', message: 'Failed to save group {:path=>["has already been taken"]}' } },
  'a group with 21 ancestors is nested too deep (Group::NUMBER_OF_ANCESTORS_ALLOWED is 20)': {
    // A chain of 21 groups, 3 at the top: a subgroup of the 20th has 20 ancestors, of the 21st 21.
    given: [alice, team, owner, ...Array.from({ length: 20 }, (_, i) => groupCreated(4 + i, `level${i + 1}`, { parent: 3 + i }))],
    as: 1,
    when: { type: 'CreateGroup', name: 'Deep', path: 'deep', parent_id: 23 },
    error: { _tag: 'BadRequest', message: 'Failed to save group {:parent_id=>["has too deep level of nesting"]}' },
  },
  'a transfer under 20 ancestors is refused, as the model’s save! refuses it': {
    given: [alice, team, owner, ...Array.from({ length: 20 }, (_, i) => groupCreated(4 + i, `level${i + 1}`, { parent: 3 + i })), groupCreated(30, 'loose', { by: 1 }), memberAdded(9, { group: 30 }, 1, 50, { by: 1 })],
    as: 1,
    when: { type: 'TransferGroup', id: 30, parent_id: 23 },
    error: { _tag: 'BadRequest', message: 'Transfer failed: Validation failed: Parent has too deep level of nesting' },
  },
  'a group with 20 ancestors is allowed': {
    given: [alice, team, owner, ...Array.from({ length: 19 }, (_, i) => groupCreated(4 + i, `level${i + 1}`, { parent: 3 + i }))],
    as: 1,
    when: { type: 'CreateGroup', name: 'Deep', path: 'deep', parent_id: 22 },
    then: [
      { type: 'GroupCreated', data: { id: 102, name: 'Deep', path: 'deep', parent_id: 22, visibility: 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: 1 } },
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 102, user_id: 1, invite_email: null, access_level: 50, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1 } },
    ],
  },
  'an unknown parent': { given: [alice], as: 1, when: { type: 'CreateGroup', name: 'x', path: 'x', parent_id: 9 }, error: notFound('Group') },
  'an owner updates the group': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, name: 'Team 2', new_user_signups_cap: 10 },
    then: [{ type: 'GroupUpdated', data: { name: 'Team 2', new_user_signups_cap: 10, id: 3, updated_at: AT } }],
  },
  'an update that changes nothing writes nothing (the group keeps its updated_at)': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'team', visibility: 'private' },
    then: [],
  },
  'a maintainer may not update the group': { given: [alice, bob, team, owner, memberAdded(2, { group: 3 }, 2, 40)], as: 2, when: { type: 'UpdateGroup', id: 3, name: 'x' }, error: forbidden() },
  'the user cap is for top-level groups only': {
    given: [alice, team, owner, groupCreated(4, 'sub', { parent: 3 })],
    as: 1,
    when: { type: 'UpdateGroup', id: 4, new_user_signups_cap: 1 },
    error: validation({ new_user_signups_cap: ['is only available on top-level groups'] }),
  },
  'deleting a group deletes its subtree deepest first: projects, shares, memberships, then the group': {
    given: [
      alice,
      bob,
      team,
      owner,
      groupCreated(4, 'sub', { parent: 3 }),
      memberAdded(2, { group: 4 }, 2, 30),
      projectCreated(1, 'app', 4),
      groupCreated(5, 'other'),
      { type: 'GroupLinkCreated', data: { id: 1, source_type: 'Namespace', source_id: 5, group_id: 4, group_access: 20, expires_at: null, created_at: AT, created_by_id: null } },
    ],
    as: 1,
    when: { type: 'DeleteGroup', id: 3 },
    then: [
      { type: 'ProjectDeleted', data: { id: 1, at: AT } },
      { type: 'GroupLinkRemoved', data: { id: 1, source_type: 'Namespace', source_id: 5, group_id: 4, at: AT, reason: 'source_deleted' } },
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Namespace', source_id: 4, user_id: 2, at: AT } },
      { type: 'GroupDeleted', data: { id: 4, at: AT } },
      { type: 'MemberRemoved', data: { id: 1, source_type: 'Namespace', source_id: 3, user_id: 1, at: AT } },
      { type: 'GroupDeleted', data: { id: 3, at: AT } },
    ],
  },
  'only owners delete a group': { given: [alice, bob, team, owner, memberAdded(2, { group: 3 }, 2, 40)], as: 2, when: { type: 'DeleteGroup', id: 3 }, error: forbidden() },
  'deleting an unknown group': { given: [alice], as: 1, when: { type: 'DeleteGroup', id: 3 }, error: notFound('Group') },
  // Groups::TransferService
  'an owner moves a group under another group they maintain': {
    given: [alice, team, owner, groupCreated(4, 'other', { by: 1 }), memberAdded(2, { group: 4 }, 1, 50, { by: 1 })],
    as: 1,
    when: { type: 'TransferGroup', id: 4, parent_id: 3 },
    then: [{ type: 'GroupTransferred', data: { id: 4, from_parent_id: null, parent_id: 3, at: AT } }],
  },
  'a transfer lowers what moves under a less visible parent': {
    given: [alice, team, owner, groupCreated(4, 'open', { by: 1, visibility: 'public' }), memberAdded(2, { group: 4 }, 1, 50, { by: 1 }), projectCreated(1, 'p', 4, { visibility: 'internal' })],
    as: 1,
    when: { type: 'TransferGroup', id: 4, parent_id: 3 },
    then: [
      { type: 'GroupTransferred', data: { id: 4, from_parent_id: null, parent_id: 3, at: AT } },
      { type: 'GroupUpdated', data: { id: 4, visibility: 'private', updated_at: AT } },
      { type: 'ProjectUpdated', data: { id: 1, visibility: 'private', updated_at: AT } },
    ],
  },
  'a top-level group is already a root group': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'TransferGroup', id: 3, parent_id: null },
    error: { _tag: 'BadRequest', message: 'Transfer failed: Group is already a root group.' },
  },
  'only an owner transfers a group': {
    given: [alice, bob, team, owner, groupCreated(4, 'other', { by: 2 }), memberAdded(2, { group: 4 }, 2, 50, { by: 2 })],
    as: 2,
    when: { type: 'TransferGroup', id: 4, parent_id: 3 },
    error: { _tag: 'BadRequest', message: "Transfer failed: You don't have enough permissions." },
  },
  // Gitlab::PathRegex through NamespacePathValidator (branch `reserved`).
  'a top-level group may not take a TOP_LEVEL_ROUTES word': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: 'Admin', path: 'Admin' },
    error: { _tag: 'BadRequest', message: 'Failed to save group {:path=>["Admin is a reserved name"]}' },
  },
  'a path both reserved and taken (an old log’s group) has both errors, the reserved one first': {
    given: [alice, groupCreated(3, 'api')],
    as: 1,
    when: { type: 'CreateGroup', name: 'Api', path: 'API' },
    error: { _tag: 'BadRequest', message: 'Failed to save group {:path=>["API is a reserved name", "has already been taken"]}' },
  },
  'a format error comes alone': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: 'X', path: 'admin.git' },
    error: { _tag: 'BadRequest', message: `Failed to save group {:path=>["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."]}` },
  },
  // Namespace's `validates :path, length: { minimum: 2 }, if: :path_changed?`, after NamespacePathValidator.
  'a one-character path is too short, for a subgroup too; a bad one has both messages': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'CreateGroup', name: 'S', path: 's', parent_id: 3 },
    error: { _tag: 'BadRequest', message: 'Failed to save group {:path=>["is too short (minimum is 2 characters)"]}' },
  },
  'a one-character path that breaks the format has both messages': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: 'S', path: '.' },
    error: { _tag: 'BadRequest', message: `Failed to save group {:path=>["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.", "is too short (minimum is 2 characters)"]}` },
  },
  'a renamed group may not take a one-character path': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'x' },
    error: validation({ path: ['is too short (minimum is 2 characters)'] }),
  },
  'a group an old log holds under a one-character path keeps its other updates': {
    given: [alice, groupCreated(3, 'x', { by: 1 }), owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'x', description: 'd' },
    then: [{ type: 'GroupUpdated', data: { path: 'x', description: 'd', id: 3, updated_at: AT } }],
  },
  'a subgroup may take a top-level word': {
    given: [team],
    when: { type: 'CreateGroup', name: 'Admin', path: 'admin', parent_id: 3 },
    then: [{ type: 'GroupCreated', data: { id: 4, name: 'Admin', path: 'admin', parent_id: 3, visibility: 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: null } }],
  },
  'a subgroup may not take a project route word, nor end one that spans segments': {
    given: [team, groupCreated(4, 'info', { parent: 3 }), groupCreated(5, 'lfs', { parent: 4 })],
    when: { type: 'CreateGroup', name: 'Objects', path: 'objects', parent_id: 5 },
    error: { _tag: 'BadRequest', message: 'Failed to save group {:path=>["objects is a reserved name"]}' },
  },
  'a renamed group may not take a reserved path': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'help' },
    error: validation({ path: ['help is a reserved name'] }),
  },
  'a group an old log holds under a reserved path keeps its other updates and its subgroups': {
    given: [alice, groupCreated(3, 'help', { by: 1 }), owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'help', description: 'd' },
    then: [{ type: 'GroupUpdated', data: { path: 'help', description: 'd', id: 3, updated_at: AT } }],
  },
  'a group an old log holds under a path of an older format keeps its updates that name the same path': {
    given: [alice, groupCreated(3, 'old.', { by: 1 }), owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'old.', description: 'd' },
    then: [{ type: 'GroupUpdated', data: { path: 'old.', description: 'd', id: 3, updated_at: AT } }],
  },
  'a renamed group may not take a path of the wrong format': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, path: 'team.' },
    error: validation({ path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."] }),
  },
  'a subgroup under a parent an old log holds under a reserved path': {
    given: [groupCreated(3, 'help')],
    when: { type: 'CreateGroup', name: 'Sub', path: 'sub', parent_id: 3 },
    then: [{ type: 'GroupCreated', data: { id: 4, name: 'Sub', path: 'sub', parent_id: 3, visibility: 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: null } }],
  },
  'a subgroup moved to the top may not keep a reserved path (the save! of Groups::TransferService)': {
    given: [userCreated(1, 'root', { admin: true }), team, groupCreated(4, 'admin', { parent: 3 })],
    as: 1,
    when: { type: 'TransferGroup', id: 4, parent_id: null },
    error: { _tag: 'BadRequest', message: 'Transfer failed: Validation failed: Path admin is a reserved name' },
  },
  'a group moved under a parent may not keep a path its new place reserves, nor nest too deep': {
    given: [alice, team, owner, ...Array.from({ length: 20 }, (_, i) => groupCreated(4 + i, `level${i + 1}`, { parent: 3 + i })), groupCreated(30, 'raw', { by: 1 }), memberAdded(9, { group: 30 }, 1, 50, { by: 1 })],
    as: 1,
    when: { type: 'TransferGroup', id: 30, parent_id: 23 },
    error: { _tag: 'BadRequest', message: 'Transfer failed: Validation failed: Path raw is a reserved name, Parent has too deep level of nesting' },
  },
  // Group's `validates :name, html_safety: true, format: group_name_regex, if: :name_changed?`.
  'a new group’s name must match group_name_regex': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: '-abc', path: 'abc' },
    error: { _tag: 'BadRequest', message: `Failed to save group {:name=>["${GROUP_NAME_FORMAT}"]}` },
  },
  'a name with a tag fails HtmlSafetyValidator, then the format': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: '<b>', path: 'abc' },
    error: { _tag: 'BadRequest', message: `Failed to save group {:name=>["${HTML_SAFETY}", "${GROUP_NAME_FORMAT}"]}` },
  },
  'a group name may hold parentheses, letters of any script, emoji, dashes and dots': {
    given: [alice],
    as: 1,
    when: { type: 'CreateGroup', name: 'Ünï (EU) 😀 a.b-c', path: 'abc' },
    then: [
      { type: 'GroupCreated', data: { id: 102, name: 'Ünï (EU) 😀 a.b-c', path: 'abc', parent_id: null, visibility: 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: 1 } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Namespace', source_id: 102, user_id: 1, invite_email: null, access_level: 50, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1 } },
    ],
  },
  'a renamed group’s name must match, after the visibility rules the Group model declares first': {
    given: [alice, groupCreated(3, 'team', { by: 1, visibility: 'private' }), owner, groupCreated(4, 'sub', { parent: 3 }), memberAdded(2, { group: 4 }, 1, 50, { by: 1 })],
    as: 1,
    when: { type: 'UpdateGroup', id: 4, name: 'a/b', visibility: 'public' },
    error: validation({ visibility_level: ['public is not allowed since the parent group has a private visibility.'], name: [GROUP_NAME_FORMAT] }),
  },
  'a group an old log holds under a name the rule refuses keeps its other updates, that name given or not': {
    given: [alice, named(groupCreated(3, 'team', { by: 1 }), '-team'), owner],
    as: 1,
    when: { type: 'UpdateGroup', id: 3, name: '-team', description: 'd' },
    then: [{ type: 'GroupUpdated', data: { name: '-team', description: 'd', id: 3, updated_at: AT } }],
  },
};

