/** Decider specs of the projects module. */
import { forbidden, notFound, unauthorized, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const root = userCreated(1, 'root', { admin: true });
const alice = userCreated(2, 'alice');
const bob = userCreated(3, 'bob');
const team = groupCreated(4, 'team');

const forkOf = (id: number, path: string, source: number, namespace: number): ForgefoldEvent[] => [
  projectCreated(id, path, namespace, { kind: 'user' }),
  { type: 'ProjectForked', data: { id, forked_from_id: source, at: AT } },
];

/** A ProjectCreated event under another name (an old log's project, named before the name rule was checked). */
const named = (event: ForgefoldEvent, name: string): ForgefoldEvent => ({ ...event, data: { ...(event.data as object), name } }) as ForgefoldEvent;
const PROJECT_NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";

export const projectSpecs: Record<string, Spec> = {
  'the owner unlinks a fork from its source': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), ...forkOf(2, 'app', 1, 103), memberAdded(1, { project: 2 }, 3, 40)],
    as: 3,
    when: { type: 'UnlinkFork', id: 2 },
    then: [{ type: 'ProjectUnforked', data: { id: 2, forked_from_id: 1, at: AT } }],
  },
  // Projects::UnlinkForkService: `forked_to_members.update_all(forked_from_project_id: nil)`, for a fork and for a root.
  'unlinking a fork that has forks of its own unlinks those too': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), ...forkOf(2, 'app', 1, 103), memberAdded(1, { project: 2 }, 3, 40), ...forkOf(3, 'app2', 2, 103)],
    as: 3,
    when: { type: 'UnlinkFork', id: 2 },
    then: [
      { type: 'ProjectUnforked', data: { id: 2, forked_from_id: 1, at: AT } },
      { type: 'ProjectUnforked', data: { id: 3, forked_from_id: 2, at: AT } },
    ],
  },
  'unlinking the root of forks unlinks its forks': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), memberAdded(1, { project: 1 }, 2, 40), ...forkOf(2, 'app', 1, 103)],
    as: 2,
    when: { type: 'UnlinkFork', id: 1 },
    then: [{ type: 'ProjectUnforked', data: { id: 2, forked_from_id: 1, at: AT } }],
  },
  'a project that forks nothing records nothing when unlinked': { given: [alice, projectCreated(1, 'app', 102, { kind: 'user' })], as: 2, when: { type: 'UnlinkFork', id: 1 }, then: [] },
  'only the owner unlinks a fork': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), ...forkOf(2, 'app', 1, 103), memberAdded(1, { project: 2 }, 2, 40)],
    as: 2,
    when: { type: 'UnlinkFork', id: 2 },
    error: forbidden(),
  },
  'a personal project: its owner becomes a direct maintainer': {
    given: [alice],
    as: 2,
    when: { type: 'CreateProject', name: 'My App' },
    then: [
      { type: 'ProjectCreated', data: { id: 1, name: 'My App', path: 'my-app', description: '', namespace_id: 102, namespace_kind: 'user', visibility: 'private', creator_id: 2, created_at: AT } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Project', source_id: 1, user_id: 2, invite_email: null, access_level: 40, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 2 } },
    ],
  },
  'a group project gets no direct members': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 30)],
    as: 2,
    when: { type: 'CreateProject', path: 'app', namespace_id: 4, visibility: 'internal', description: 'd' },
    then: [{ type: 'ProjectCreated', data: { id: 1, name: 'app', path: 'app', description: 'd', namespace_id: 4, namespace_kind: 'group', visibility: 'internal', creator_id: 2, created_at: AT } }],
  },
  // Projects::CreateService#deny_namespace: a model error, 400 {"message":{"namespace":["is not valid"]}}.
  'reporters do not create projects in a group': { given: [alice, team, memberAdded(1, { group: 4 }, 2, 20)], as: 2, when: { type: 'CreateProject', path: 'app', namespace_id: 4 }, error: validation({ namespace: ['is not valid'] }) },
  'an administrator creates a project for a user': {
    given: [root, alice],
    as: 1,
    when: { type: 'CreateProject', path: 'app', owner_id: 2 },
    then: [
      { type: 'ProjectCreated', data: { id: 1, name: 'app', path: 'app', description: '', namespace_id: 102, namespace_kind: 'user', visibility: 'private', creator_id: 1, created_at: AT } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Project', source_id: 1, user_id: 2, invite_email: null, access_level: 40, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1 } },
    ],
  },
  'only administrators create projects for others': { given: [alice, bob], as: 3, when: { type: 'CreateProject', path: 'app', owner_id: 2 }, error: forbidden() },
  'someone else’s personal namespace': { given: [alice, bob], as: 3, when: { type: 'CreateProject', path: 'app', namespace_id: 102 }, error: validation({ namespace: ['is not valid'] }) },
  'an unknown namespace': { given: [alice], as: 2, when: { type: 'CreateProject', path: 'app', namespace_id: 77 }, error: validation({ namespace: ['is not valid'] }) },
  'a taken path in the namespace': { given: [alice, projectCreated(1, 'app', 102, { kind: 'user' })], as: 2, when: { type: 'CreateProject', path: 'App' }, error: validation({ path: ['has already been taken'] }) },
  'a maintainer updates the project': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 40), projectCreated(1, 'app', 4)],
    as: 2,
    when: { type: 'UpdateProject', id: 1, description: 'x' },
    then: [{ type: 'ProjectUpdated', data: { description: 'x', id: 1, updated_at: AT } }],
  },
  'an owner renames the project and changes its visibility': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 50), projectCreated(1, 'app', 4)],
    as: 2,
    when: { type: 'UpdateProject', id: 1, name: 'App', visibility: 'private', description: 'x' },
    then: [{ type: 'ProjectUpdated', data: { name: 'App', visibility: 'private', description: 'x', id: 1, updated_at: AT } }],
  },
  'a maintainer may not rename the project (rename_project)': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 40), projectCreated(1, 'app', 4)],
    as: 2,
    when: { type: 'UpdateProject', id: 1, name: 'App' },
    error: forbidden(),
  },
  'a maintainer may not give a visibility, even the same one (change_visibility_level)': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 40), projectCreated(1, 'app', 4)],
    as: 2,
    when: { type: 'UpdateProject', id: 1, visibility: 'private' },
    error: forbidden(),
  },
  'an empty update writes nothing': { given: [alice, team, memberAdded(1, { group: 4 }, 2, 40), projectCreated(1, 'app', 4)], as: 2, when: { type: 'UpdateProject', id: 1 }, then: [] },
  'developers do not update a project': { given: [alice, team, memberAdded(1, { group: 4 }, 2, 30), projectCreated(1, 'app', 4)], as: 2, when: { type: 'UpdateProject', id: 1, name: 'x' }, error: forbidden() },
  'deleting a project ends its shares and memberships first': {
    given: [
      alice,
      bob,
      projectCreated(1, 'app', 102, { kind: 'user' }),
      memberAdded(1, { project: 1 }, 2, 40),
      memberAdded(2, { project: 1 }, 3, 30),
      team,
      { type: 'GroupLinkCreated', data: { id: 1, source_type: 'Project', source_id: 1, group_id: 4, group_access: 30, expires_at: null, created_at: AT, created_by_id: 2 } },
    ],
    as: 2,
    when: { type: 'DeleteProject', id: 1 },
    then: [
      { type: 'GroupLinkRemoved', data: { id: 1, source_type: 'Project', source_id: 1, group_id: 4, at: AT, reason: 'source_deleted' } },
      { type: 'MemberRemoved', data: { id: 1, source_type: 'Project', source_id: 1, user_id: 2, at: AT } },
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Project', source_id: 1, user_id: 3, at: AT } },
      { type: 'ProjectDeleted', data: { id: 1, at: AT } },
    ],
  },
  'maintainers do not delete a project (owners do)': { given: [alice, team, memberAdded(1, { group: 4 }, 2, 40), projectCreated(1, 'app', 4)], as: 2, when: { type: 'DeleteProject', id: 1 }, error: forbidden() },
  'deleting an unknown project': { given: [alice], as: 2, when: { type: 'DeleteProject', id: 1 }, error: notFound('Project') },
  // Projects::TransferService
  // GroupPolicy's `transfer_projects`: `maintainer & can?(:create_projects)`.
  'an owner moves a project to a group they may create projects in': {
    given: [root, alice, team, memberAdded(1, { group: 4 }, 2, 50), groupCreated(5, 'other'), memberAdded(2, { group: 5 }, 2, 40), projectCreated(1, 'p', 4)],
    as: 2,
    when: { type: 'TransferProject', id: 1, namespace_id: 5 },
    then: [{ type: 'ProjectTransferred', data: { id: 1, from_namespace_id: 4, namespace_id: 5, namespace_kind: 'group', at: AT } }],
  },
  'only the project’s owner transfers it': {
    given: [root, alice, team, memberAdded(1, { group: 4 }, 2, 40), groupCreated(5, 'other'), memberAdded(2, { group: 5 }, 2, 50), projectCreated(1, 'p', 4)],
    as: 2,
    when: { type: 'TransferProject', id: 1, namespace_id: 5 },
    error: forbidden(),
  },
  'a namespace that is not there': {
    given: [root, team, projectCreated(1, 'p', 4)],
    as: 1,
    when: { type: 'TransferProject', id: 1, namespace_id: 77 },
    error: notFound('Namespace'),
  },
  'a reporter forks into their own namespace: the source’s name and path, at most as visible as the source, and the fork relation': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'internal' }), memberAdded(1, { project: 1 }, 3, 20)],
    as: 3,
    when: { type: 'ForkProject', id: 1, visibility: 'public' },
    then: [
      { type: 'ProjectCreated', data: { id: 2, name: 'app', path: 'app', description: '', namespace_id: 103, namespace_kind: 'user', visibility: 'internal', creator_id: 3, created_at: AT } },
      { type: 'MemberAdded', data: { id: 2, source_type: 'Project', source_id: 2, user_id: 3, invite_email: null, access_level: 40, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 3 } },
      { type: 'ProjectForked', data: { id: 2, forked_from_id: 1, at: AT } },
    ],
  },
  'a fork into a group where the actor creates projects takes the group’s visibility when lower': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 30), projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' })],
    as: 2,
    when: { type: 'ForkProject', id: 1, namespace_id: 4, path: 'app-fork', name: 'App fork' },
    then: [
      { type: 'ProjectCreated', data: { id: 2, name: 'App fork', path: 'app-fork', description: '', namespace_id: 4, namespace_kind: 'group', visibility: 'private', creator_id: 2, created_at: AT } },
      { type: 'ProjectForked', data: { id: 2, forked_from_id: 1, at: AT } },
    ],
  },
  'no fork without download_code on the source': { given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user' })], as: 3, when: { type: 'ForkProject', id: 1 }, error: notFound('Project') },
  // ForkTargetsFinder counts only memberships in force: one that expired yesterday makes no group a target.
  'no fork into a group by an expired membership': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 40, { expires: '2025-12-31' }), projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' })],
    as: 2,
    when: { type: 'ForkProject', id: 1, namespace_id: 4 },
    error: notFound('Target Namespace'),
  },
  'no fork into a namespace that is not a fork target': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' })],
    as: 3,
    when: { type: 'ForkProject', id: 1, namespace_id: 102 },
    error: notFound('Target Namespace'),
  },
  'no fork into an unknown namespace': { given: [alice, projectCreated(1, 'app', 102, { kind: 'user' })], as: 2, when: { type: 'ForkProject', id: 1, namespace_id: 77 }, error: notFound('Namespace') },
  'a fork whose name and path are taken': {
    given: [alice, projectCreated(1, 'app', 102, { kind: 'user' })],
    as: 2,
    when: { type: 'ForkProject', id: 1 },
    error: validation({ name: ['has already been taken'], path: ['has already been taken'] }),
  },
  // lib/api/projects.rb `POST /projects/:id/star`: `user_project` (read_project), then `toggle_star` unless starred.
  'a user stars a project they can read': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' })],
    as: 3,
    when: { type: 'StarProject', id: 1 },
    then: [{ type: 'ProjectStarred', data: { id: 1, user_id: 3, at: AT } }],
  },
  'starring a starred project records nothing (304)': {
    given: [alice, projectCreated(1, 'app', 102, { kind: 'user' }), { type: 'ProjectStarred', data: { id: 1, user_id: 2, at: AT } }],
    as: 2,
    when: { type: 'StarProject', id: 1 },
    then: [],
  },
  'a star again after taking it back': {
    given: [alice, projectCreated(1, 'app', 102, { kind: 'user' }), { type: 'ProjectStarred', data: { id: 1, user_id: 2, at: AT } }, { type: 'ProjectUnstarred', data: { id: 1, user_id: 2, at: AT } }],
    as: 2,
    when: { type: 'StarProject', id: 1 },
    then: [{ type: 'ProjectStarred', data: { id: 1, user_id: 2, at: AT } }],
  },
  'no star on a project the user cannot read': { given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user' })], as: 3, when: { type: 'StarProject', id: 1 }, error: notFound('Project') },
  'no star on an unknown project': { given: [alice], as: 2, when: { type: 'StarProject', id: 9 }, error: notFound('Project') },
  'starring needs a user': { given: [alice, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' })], when: { type: 'StarProject', id: 1 }, error: unauthorized },
  'a user takes their star back': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), { type: 'ProjectStarred', data: { id: 1, user_id: 3, at: AT } }, { type: 'ProjectStarred', data: { id: 1, user_id: 2, at: AT } }],
    as: 3,
    when: { type: 'UnstarProject', id: 1 },
    then: [{ type: 'ProjectUnstarred', data: { id: 1, user_id: 3, at: AT } }],
  },
  'unstarring a project not starred records nothing (304)': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), { type: 'ProjectStarred', data: { id: 1, user_id: 2, at: AT } }],
    as: 3,
    when: { type: 'UnstarProject', id: 1 },
    then: [],
  },
  // A star stays when the project becomes unreadable, but `user_project` answers 404 before the star is looked at.
  'no unstar on a project the user can no longer read': {
    given: [alice, bob, projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), { type: 'ProjectStarred', data: { id: 1, user_id: 3, at: AT } }, { type: 'ProjectUpdated', data: { id: 1, visibility: 'private', updated_at: AT } }],
    as: 3,
    when: { type: 'UnstarProject', id: 1 },
    error: notFound('Project'),
  },
  // Gitlab::PathRegex through ProjectPathValidator (branch `reserved`).
  'a project may not take a project route word': {
    given: [alice, team, memberAdded(1, { group: 4 }, 2, 40)],
    as: 2,
    when: { type: 'CreateProject', path: 'Edit', namespace_id: 4 },
    error: validation({ path: ['Edit is a reserved name'] }),
  },
  'a project path derived from the name is checked too': {
    given: [alice],
    as: 2,
    when: { type: 'CreateProject', name: 'New' },
    error: validation({ path: ['new is a reserved name'] }),
  },
  'a project may take a top-level word': {
    given: [alice],
    as: 2,
    when: { type: 'CreateProject', path: 'admin' },
    then: [
      { type: 'ProjectCreated', data: { id: 1, name: 'admin', path: 'admin', description: '', visibility: 'private', namespace_id: 102, namespace_kind: 'user', creator_id: 2, created_at: AT } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Project', source_id: 1, user_id: 2, invite_email: null, access_level: 40, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 2 } },
    ],
  },
  'a project path may not end a group word that spans segments': {
    given: [root, team, groupCreated(5, 'gitlab-lfs', { parent: 4 })],
    as: 1,
    when: { type: 'CreateProject', path: 'objects', namespace_id: 5 },
    error: validation({ path: ['objects is a reserved name'] }),
  },
  'a path both reserved and taken (an old log’s project) has both errors, the reserved one first': {
    given: [root, team, projectCreated(1, 'tree', 4)],
    as: 1,
    when: { type: 'CreateProject', name: 'Other', path: 'TREE', namespace_id: 4 },
    error: validation({ path: ['TREE is a reserved name', 'has already been taken'] }),
  },
  'an old log’s project given its own reserved path again changes nothing': {
    given: [root, team, projectCreated(1, 'tree', 4)],
    as: 1,
    when: { type: 'UpdateProject', id: 1, path: 'tree' },
    then: [],
  },
  'a renamed project may not take a reserved path': {
    given: [root, team, projectCreated(1, 'app', 4)],
    as: 1,
    when: { type: 'UpdateProject', id: 1, path: 'raw' },
    error: validation({ path: ['raw is a reserved name'] }),
  },
  'a project an old log holds under a reserved path keeps its other updates': {
    given: [root, team, projectCreated(1, 'tree', 4)],
    as: 1,
    when: { type: 'UpdateProject', id: 1, description: 'x' },
    then: [{ type: 'ProjectUpdated', data: { description: 'x', id: 1, updated_at: AT } }],
  },
  "a project path may end in '.' (project_path_format_regex; a namespace's may not)": {
    given: [alice],
    as: 2,
    when: { type: 'CreateProject', path: 'v1.' },
    then: [
      { type: 'ProjectCreated', data: { id: 1, name: 'v1.', path: 'v1.', description: '', visibility: 'private', namespace_id: 102, namespace_kind: 'user', creator_id: 2, created_at: AT } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Project', source_id: 1, user_id: 2, invite_email: null, access_level: 40, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 2 } },
    ],
  },
  'a fork may not take a reserved path': {
    given: [alice, projectCreated(1, 'app', 102, { kind: 'user' })],
    as: 2,
    when: { type: 'ForkProject', id: 1, name: 'Other', path: 'blob' },
    error: validation({ path: ['blob is a reserved name'] }),
  },
  // Project's `validates :name, presence, length, format: project_name_regex`.
  'a new project’s name must match project_name_regex': {
    given: [alice],
    as: 2,
    when: { type: 'CreateProject', name: 'a+b', path: 'ab' },
    error: validation({ name: [PROJECT_NAME_FORMAT] }),
  },
  'a renamed project’s name must match; a too long one has both messages': {
    given: [root, team, projectCreated(1, 'app', 4)],
    as: 1,
    when: { type: 'UpdateProject', id: 1, name: `<${'b'.repeat(255)}>` },
    error: validation({ name: ['is too long (maximum is 255 characters)', PROJECT_NAME_FORMAT] }),
  },
  'a project an old log holds under a name the rule refuses keeps its other updates, that name given or not': {
    given: [root, team, named(projectCreated(1, 'app', 4), 'App (old)')],
    as: 1,
    when: { type: 'UpdateProject', id: 1, name: 'App (old)', description: 'x' },
    then: [{ type: 'ProjectUpdated', data: { name: 'App (old)', description: 'x', id: 1, updated_at: AT } }],
  },
  'a fork takes the source’s name, which a new project must match (an old log’s source)': {
    given: [alice, bob, named(projectCreated(1, 'app', 102, { kind: 'user', visibility: 'public' }), 'App (old)')],
    as: 3,
    when: { type: 'ForkProject', id: 1 },
    error: validation({ name: [PROJECT_NAME_FORMAT] }),
  },
};
