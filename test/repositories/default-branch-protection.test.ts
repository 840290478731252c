/**
 * The default branch is protected when it is created (`Projects::ProtectDefaultBranchService`, called by
 * `Git::BranchHooksService#branch_create_hooks` and `Project#after_import`), at the instance's
 * `default_branch_protection`: by a README commit, a first push, or a fork. Developers then neither push nor merge
 * to it under the default (2), over the API and over git.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, clientEnv } from '../git/support.js';
import { GitRepositories } from '@forgefold/git';
import { member, newDataDir, removeDir, start, type Running } from './support.js';

let server: Running;
let dataDir: string;
let work: string;
let dev: { id: number; token: string };
let maintainer: { id: number; token: string };

const env = () => clientEnv(work);
const pathOf = (projectId: number) => new GitRepositories({ root: join(dataDir, 'repositories') }).pathOf(projectId);
const git = (gitDir: string, ...args: string[]) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
const gitUrl = (user: string, token: string, path: string) => `http://${user}:${token}@${new URL(server.url).host}/${path}.git`;

const protectedBranches = async (projectId: number) =>
  (await server.call('GET', `/projects/${projectId}/protected_branches`)).body as { name: string; push_access_levels: { access_level: number }[]; merge_access_levels: { access_level: number }[] }[];
const levels = async (projectId: number) =>
  (await protectedBranches(projectId)).map((rule) => [rule.name, rule.push_access_levels[0]!.access_level, rule.merge_access_levels[0]!.access_level]);

const setProtection = async (level: number) => expect((await server.call('PUT', '/application/settings', { default_branch_protection: level })).status).toBe(200);

/** A project with a Developer and a Maintainer; a README commit when `readme`. */
const newProject = async (name: string, readme: boolean) => {
  const project = (await server.call('POST', '/projects', { name, initialize_with_readme: readme })).body as { id: number; path_with_namespace: string };
  await server.call('POST', `/projects/${project.id}/members`, { user_id: dev.id, access_level: 30 });
  await server.call('POST', `/projects/${project.id}/members`, { user_id: maintainer.id, access_level: 40 });
  return project;
};

const commitAs = (projectId: number, token: string, branch: string, message: string, start?: string) =>
  server.call('POST', `/projects/${projectId}/repository/commits`, { branch, commit_message: message, actions: [], ...(start ? { start_branch: start } : {}) }, token);

beforeAll(async () => {
  dataDir = newDataDir();
  work = mkdtempSync(join(tmpdir(), 'forgefold-client-'));
  server = await start(dataDir);
  dev = await member(server, 'dev');
  maintainer = await member(server, 'maintainer');
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
  removeDir(work);
});

describe('default branch protection', () => {
  it('protects the default branch a README commit creates: Maintainers push and merge, Developers neither', async () => {
    const project = await newProject('Guarded', true);
    const rules = await protectedBranches(project.id);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      name: 'main',
      push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      merge_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      allow_force_push: false,
      unprotect_access_levels: [],
      code_owner_approval_required: false,
    });
    expect((await server.call('GET', `/projects/${project.id}/repository/branches/main`)).body).toMatchObject({ protected: true, developers_can_push: false, developers_can_merge: false });

    // The API: a Developer's commit is refused (lib/api/commits.rb `authorize_push_to_branch!`), a Maintainer's goes in.
    expect(await commitAs(project.id, dev.token, 'main', 'By a developer')).toMatchObject({ status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } });
    expect((await commitAs(project.id, maintainer.token, 'main', 'By a maintainer')).status).toBe(201);

    // A merge request into it: the Developer may open it, not merge it (401, `can_be_merged_by?`).
    expect((await commitAs(project.id, dev.token, 'topic', 'Topic work', 'main')).status).toBe(201);
    const mr = await server.call('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic' }, dev.token);
    expect(mr.status).toBe(201);
    expect((await server.call('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, {}, dev.token)).status).toBe(401);
    expect((await server.call('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, {}, maintainer.token)).status).toBe(200);

    // git: the Developer's push to main is refused by the pre-receive check; to another branch it goes through.
    const clone = await client(work, ['clone', '--quiet', gitUrl('dev', dev.token, project.path_with_namespace), 'guarded'], env());
    expect(clone.code, clone.stderr).toBe(0);
    const repo = join(work, 'guarded');
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'Pushed to main'], env());
    const refused = await client(repo, ['push', '-q', 'origin', 'main'], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('GitLab: You are not allowed to push code to protected branches on this project.');
    expect((await client(repo, ['push', '-q', 'origin', 'main:elsewhere'], env())).code).toBe(0);
  });

  it('lets only Maintainers make the first push into an empty repository, then protects what it created', async () => {
    const project = await newProject('Pushed', false);
    expect(await protectedBranches(project.id)).toEqual([]);
    const repo = join(work, 'pushed');
    expect((await client(work, ['init', '-q', '-b', 'main', repo], env())).code).toBe(0);
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'First'], env());
    // `ProtectedBranch.protected?` holds for every branch of an empty repository under level 2 or 3.
    const before = server.events.length;
    const refused = await client(repo, ['push', '-q', gitUrl('dev', dev.token, project.path_with_namespace), 'main'], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`A default branch (e.g. main) does not yet exist for ${project.path_with_namespace}`);
    expect(refused.stderr).toContain(`Ask a project Owner or Maintainer to create a default branch:`);
    expect(refused.stderr).toContain(`${server.url}/${project.path_with_namespace}/-/project_members`);
    expect(server.events.length).toBe(before);
    expect(await commitAs(project.id, dev.token, 'main', 'By the API')).toMatchObject({ status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } });

    const first = await client(repo, ['push', '-q', gitUrl('maintainer', maintainer.token, project.path_with_namespace), 'main'], env());
    expect(first.code, first.stderr).toBe(0);
    expect(await levels(project.id)).toEqual([['main', 40, 40]]);
    const rule = server.events.filter((event) => event.type === 'ProtectedBranchCreated').at(-1)!;
    expect(rule.data).toMatchObject({ project_id: project.id, name: 'main' });
    expect(rule.metadata.actorId).toBe(maintainer.id);

    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'Second'], env());
    const second = await client(repo, ['push', '-q', gitUrl('dev', dev.token, project.path_with_namespace), 'main'], env());
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('You are not allowed to push code to protected branches on this project.');
  });

  it('lets a Developer make the first push at level 1 (Developers may push)', async () => {
    try {
      await setProtection(1);
      const project = await newProject('Dev first', false);
      expect((await commitAs(project.id, dev.token, 'main', 'First')).status).toBe(201);
      expect(await levels(project.id)).toEqual([['main', 30, 40]]);
    } finally {
      await setProtection(2);
    }
  });

  it('protects the branch that becomes the default when HEAD names none, and only the default', async () => {
    const project = await newProject('Dangling', false);
    const repo = join(work, 'dangling');
    await client(work, ['init', '-q', '-b', 'feature', repo], env());
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'First'], env());
    await client(repo, ['branch', 'other'], env());
    expect((await client(repo, ['push', '-q', gitUrl('maintainer', maintainer.token, project.path_with_namespace), 'feature', 'other'], env())).code).toBe(0);
    // HEAD named `main`, which the push did not create: the default is the first branch by name, as Gitaly answers,
    // and `change_head` points HEAD at it, so a later branch does not take its place.
    expect((await server.call('GET', `/projects/${project.id}`)).body.default_branch).toBe('feature');
    expect(await levels(project.id)).toEqual([['feature', 40, 40]]);
    await client(repo, ['branch', 'alpha'], env());
    expect((await client(repo, ['push', '-q', gitUrl('maintainer', maintainer.token, project.path_with_namespace), 'alpha'], env())).code).toBe(0);
    expect((await server.call('GET', `/projects/${project.id}`)).body.default_branch).toBe('feature');
    expect(await levels(project.id)).toEqual([['feature', 40, 40]]);
    // Git's HEAD was moved before the push was answered.
    expect(git(pathOf(project.id), 'symbolic-ref', 'HEAD')).toBe('refs/heads/feature');
  });

  it('follows the instance setting: 1 lets Developers push, 3 lets them merge, 0 protects nothing', async () => {
    try {
      await setProtection(1);
      expect(await levels((await newProject('Level one', true)).id)).toEqual([['main', 30, 40]]);
      await setProtection(3);
      expect(await levels((await newProject('Level three', true)).id)).toEqual([['main', 40, 30]]);
      await setProtection(0);
      const open = await newProject('Level zero', true);
      expect(await protectedBranches(open.id)).toEqual([]);
      expect((await commitAs(open.id, dev.token, 'main', 'Unprotected')).status).toBe(201);
      // A group shows the instance's level (`Namespace#default_branch_protection` falls back to it).
      expect((await server.call('POST', '/groups', { name: 'Shown', path: 'shown' })).body.default_branch_protection).toBe(0);
    } finally {
      await setProtection(2);
    }
  });

  it("follows a group's own level over the instance's, for the group's projects only (not its subgroups')", async () => {
    expect(await server.call('POST', '/groups', { name: 'Bad level', path: 'bad-level', default_branch_protection: 5 })).toMatchObject({
      status: 400,
      body: { error: 'default_branch_protection does not have a valid value' },
    });
    const group = await server.call('POST', '/groups', { name: 'Open', path: 'open', default_branch_protection: 0 });
    expect(group.body.default_branch_protection).toBe(0);
    const sub = await server.call('POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.body.id });
    expect(sub.body.default_branch_protection).toBe(2);
    const inGroup = (await server.call('POST', '/projects', { name: 'In group', namespace_id: group.body.id, initialize_with_readme: true })).body;
    expect(await protectedBranches(inGroup.id)).toEqual([]);
    const inSub = (await server.call('POST', '/projects', { name: 'In sub', namespace_id: sub.body.id, initialize_with_readme: true })).body;
    expect(await levels(inSub.id)).toEqual([['main', 40, 40]]);

    // An owner changes it (`update_default_branch_protection`); projects created afterwards follow.
    expect((await server.call('PUT', `/groups/${group.body.id}`, { default_branch_protection: 1 })).body.default_branch_protection).toBe(1);
    const later = (await server.call('POST', '/projects', { name: 'Later', namespace_id: group.body.id, initialize_with_readme: true })).body;
    expect(await levels(later.id)).toEqual([['main', 30, 40]]);
    expect(await protectedBranches(inGroup.id)).toEqual([]);
    // null: the instance's level again (`Namespace#default_branch_protection` falls back to it).
    expect((await server.call('PUT', `/groups/${group.body.id}`, { default_branch_protection: null })).body.default_branch_protection).toBe(2);

    // Who may not create groups sets no level on the subgroups they create (`remove_unallowed_params`).
    const limited = await member(server, 'limited');
    await server.call('PUT', `/users/${limited.id}`, { can_create_group: false });
    await server.call('POST', `/groups/${group.body.id}/members`, { user_id: limited.id, access_level: 50 });
    const theirs = await server.call('POST', '/groups', { name: 'Theirs', path: 'theirs', parent_id: group.body.id, default_branch_protection: 0 }, limited.token);
    expect(theirs).toMatchObject({ status: 201, body: { default_branch_protection: 2 } });
  });

  it("gives a group Developer's projects the platform's repository: no README under level 2, the HEAD asked for, a fork's source HEAD", async () => {
    const group = (await server.call('POST', '/groups', { name: 'Team', path: 'team' })).body;
    await server.call('POST', `/groups/${group.id}/members`, { user_id: dev.id, access_level: 30 });
    // `create_readme` ignores its refused commit: 201 with an empty repository, and nothing but the project recorded.
    const before = server.events.length;
    const bare = await server.call('POST', '/projects', { name: 'Bare', namespace_id: group.id, initialize_with_readme: true }, dev.token);
    expect(bare).toMatchObject({ status: 201, body: { empty_repo: true, default_branch: null } });
    expect(server.events.slice(before).map((event) => event.type)).not.toContain('BranchCreated');
    expect(await protectedBranches(bare.body.id)).toEqual([]);

    // `create_repository(default_branch:)` sets HEAD whatever the creator's role; at level 1 the README goes on it.
    try {
      await setProtection(1);
      const trunk = await server.call('POST', '/projects', { name: 'Trunk', namespace_id: group.id, initialize_with_readme: true, default_branch: 'trunk' }, dev.token);
      expect(trunk.body).toMatchObject({ default_branch: 'trunk', empty_repo: false });
      expect(await levels(trunk.body.id)).toEqual([['trunk', 30, 40]]);
    } finally {
      await setProtection(2);
    }

    // A fork keeps its source's HEAD and protects it, whoever forks (the import runs no push checks).
    const source = (await server.call('POST', '/projects', { name: 'Upstream', initialize_with_readme: true, visibility: 'public' })).body;
    await server.call('POST', `/projects/${source.id}/repository/branches`, { branch: 'develop', ref: 'main' });
    expect((await server.call('PUT', `/projects/${source.id}`, { default_branch: 'develop' })).body.default_branch).toBe('develop');
    const fork = await server.call('POST', `/projects/${source.id}/fork`, { namespace_id: group.id }, dev.token);
    expect(fork.status).toBe(201);
    expect((await server.call('GET', `/projects/${fork.body.id}`)).body.default_branch).toBe('develop');
    expect(await levels(fork.body.id)).toEqual([['develop', 40, 40]]);
    expect(git(pathOf(fork.body.id), 'symbolic-ref', 'HEAD')).toBe('refs/heads/develop');
  });

  it('adds no rule when one (exact or wildcard) already covers the default branch', async () => {
    const project = await newProject('Covered', false);
    expect((await server.call('POST', `/projects/${project.id}/protected_branches`, { name: 'ma*', push_access_level: 30 })).status).toBe(201);
    expect((await commitAs(project.id, dev.token, 'main', 'First')).status).toBe(201);
    expect(await levels(project.id)).toEqual([['ma*', 30, 40]]);
  });
});
