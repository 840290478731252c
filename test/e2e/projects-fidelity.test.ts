/**
 * `GET /projects/:id` as python-gitlab reads it (issue 16): `shared_with_groups` (SharedGroupWithProject of the links
 * the viewer can see) and, for signed-in callers, ProjectWithAccess's `permissions`; and the 403 bodies of the
 * last-owner and LDAP-synced refusals as the reference notes record them (no reason: items 75, 180).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
});
afterAll(async () => {
  await server.close();
});

describe('GET /projects/:id', () => {
  it('shows shared_with_groups and, to signed-in callers, permissions', async () => {
    const home = await createGroup(server, alice, 'Home', undefined, 'public');
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'App', namespace_id: home.id, visibility: 'public' } });
    const id = project.body.id;
    const team = await createGroup(server, carol, 'Team', undefined, 'internal');
    const hidden = await createGroup(server, carol, 'Hidden');
    await server.request('POST', `/api/v4/groups/${team.id}/members`, { token: carol.token, body: { user_id: bob.id, access_level: 40 } });
    expect((await server.request('POST', `/api/v4/projects/${id}/share`, { token: alice.token, body: { group_id: team.id, group_access: 20, expires_at: '2026-12-31' } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${id}/share`, { body: { group_id: hidden.id, group_access: 30 } })).status).toBe(201);
    await server.request('POST', `/api/v4/projects/${id}/members`, { token: alice.token, body: { user_id: carol.id, access_level: 30 } });

    const asAlice = (await server.request('GET', `/api/v4/projects/${id}`, { token: alice.token })).body;
    expect(asAlice.shared_with_groups).toEqual([{ group_id: team.id, group_name: 'Team', group_full_path: 'team', group_access_level: 20, expires_at: '2026-12-31' }]);
    expect(asAlice.permissions).toEqual({ project_access: null, group_access: { access_level: 50, notification_level: 3 } });
    expect(Object.keys(asAlice).slice(-2)).toEqual(['shared_with_groups', 'permissions']);

    const asCarol = (await server.request('GET', `/api/v4/projects/${id}`, { token: carol.token })).body;
    expect(asCarol.shared_with_groups.map((g: { group_name: string }) => g.group_name)).toEqual(['Team', 'Hidden']);
    expect(asCarol.permissions).toEqual({ project_access: { access_level: 30, notification_level: 3 }, group_access: null });
    // Access through a share is neither a project nor a group membership.
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: bob.token })).body.permissions).toEqual({ project_access: null, group_access: null });
    const anonymous = await server.request('GET', `/api/v4/projects/${id}`, { token: null });
    expect(anonymous.status).toBe(200);
    expect('permissions' in anonymous.body).toBe(false);
    expect(anonymous.body.shared_with_groups.map((g: { group_name: string }) => g.group_name)).toEqual([]);
    // A personal project's owner is its direct maintainer.
    const mine = await server.request('POST', '/api/v4/projects', { token: bob.token, body: { name: 'Mine' } });
    expect(mine.status).toBe(201);
    expect((await server.request('GET', `/api/v4/projects/${mine.body.id}`, { token: bob.token })).body.permissions).toEqual({ project_access: { access_level: 40, notification_level: 3 }, group_access: null });
  });

  it('the last owner and LDAP-synced refusals are plain 403s, as the reference records', async () => {
    const group = await createGroup(server, alice, 'Solo');
    const raw = async (method: string, path: string, body?: unknown) => {
      const r = await server.request(method, path, { token: alice.token, ...(body === undefined ? {} : { body }) });
      return { status: r.status, text: r.text };
    };
    expect(await raw('DELETE', `/api/v4/groups/${group.id}/members/${alice.id}`)).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
    expect(await raw('PUT', `/api/v4/groups/${group.id}/members/${alice.id}`, { access_level: 30 })).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
    await server.request('POST', `/api/v4/groups/${group.id}/ldap_group_links`, { token: alice.token, body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } });
    expect(await raw('POST', `/api/v4/groups/${group.id}/members`, { user_id: bob.id, access_level: 30 })).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
  });
});

describe('PUT /projects/:id', () => {
  it('with none of its parameters is 400 at_least_one_of, listing them in the platform order; nothing is written', async () => {
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Quiet' } });
    const head = server.app.position;
    for (const request of [{ body: {} }, { body: { unknown: 'x' } }, { token: bob.token, body: {} }]) {
      const answer = await server.request('PUT', `/api/v4/projects/${project.body.id}`, { token: alice.token, ...request });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error:
          'allow_merge_on_skipped_pipeline, autoclose_referenced_issues, auto_devops_enabled, auto_devops_deploy_strategy, auto_cancel_pending_pipelines, ' +
          'build_coverage_regex, build_git_strategy, build_timeout, builds_access_level, ci_config_path, ci_default_git_depth, ci_forward_deployment_enabled, ' +
          'container_registry_enabled, container_expiration_policy_attributes, default_branch, description, emails_disabled, forking_access_level, ' +
          'issues_access_level, lfs_enabled, merge_requests_access_level, merge_method, name, only_allow_merge_if_all_discussions_are_resolved, ' +
          'only_allow_merge_if_pipeline_succeeds, pages_access_level, path, printing_merge_request_link_enabled, public_builds, remove_source_branch_after_merge, ' +
          'repository_access_level, request_access_enabled, resolve_outdated_diff_discussions, restrict_user_defined_variables, squash_option, shared_runners_enabled, ' +
          'snippets_access_level, tag_list, topics, visibility, wiki_access_level, avatar, suggestion_commit_message, merge_commit_template, squash_commit_template, ' +
          'repository_storage, compliance_framework_setting, packages_enabled, service_desk_enabled, keep_latest_artifact, ' +
          'issues_enabled, jobs_enabled, merge_requests_enabled, wiki_enabled, snippets_enabled, ' +
          'approvals_before_merge, external_authorization_classification_label, fallback_approvals_required, import_url, issues_template, merge_requests_template, ' +
          'merge_pipelines_enabled, merge_trains_enabled, requirements_access_level are missing, at least one parameter must be provided',
      });
    }
    expect(server.app.position).toBe(head);
    // A name of the list is enough, though this route keeps none of it (its value is not checked here).
    expect((await server.request('PUT', `/api/v4/projects/${project.body.id}`, { token: alice.token, body: { issues_access_level: 'enabled' } })).status).toBe(200);
    // Authentication comes first (`authenticate_non_get!` is a `before`).
    expect((await server.request('PUT', `/api/v4/projects/${project.body.id}`, { token: null, body: {} })).status).toBe(401);
  });
});
