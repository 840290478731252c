/**
 * The repositories decider protects the default branch the moves of one `UpdateRefs` create
 * (`Projects::ProtectDefaultBranchService`): given a project, when its first branch is recorded, then the events are
 * exactly the move and the rule.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { findProjectByFullPath, findUserByUsername, type ForgefoldCommand } from '@forgefold/core';
import { as, makeApp, system, userCommand } from './fixtures.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

const given = async () => {
  const harness = await makeApp();
  await harness.ok(system, userCommand('alice'));
  const alice = findUserByUsername(harness.app.state.users, 'alice')!;
  await harness.ok(as(alice.id), { type: 'CreateProject', name: 'Repo' });
  const project = findProjectByFullPath(harness.app.state.projects, 'alice/repo')!;
  const push = (changes: { ref: string; old_sha: string | null; new_sha: string | null }[]): ForgefoldCommand => ({ type: 'UpdateRefs', project_id: project.id, via: 'push', changes });
  const eventsOf = async (command: ForgefoldCommand) => {
    const result = await harness.run(as(alice.id), command);
    if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
    return result.right.events.map((event) => ({ type: event.type, data: event.data }));
  };
  return { ...harness, alice, project, push, eventsOf };
};

describe('default branch protection (decider)', () => {
  it('adds the rule after the move that creates the default branch, at the instance level (2: Maintainers)', async () => {
    const { project, push, eventsOf } = await given();
    expect(await eventsOf(push([{ ref: 'refs/heads/main', old_sha: null, new_sha: SHA_A }]))).toEqual([
      { type: 'BranchCreated', data: { project_id: project.id, name: 'main', sha: SHA_A, via: 'push' } },
      {
        type: 'ProtectedBranchCreated',
        data: {
          project_id: project.id,
          id: 1,
          name: 'main',
          push_access_levels: [{ id: 1, access_level: 40 }],
          merge_access_levels: [{ id: 2, access_level: 40 }],
          unprotect_access_levels: [],
          allow_force_push: false,
          code_owner_approval_required: false,
          created_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
    // Later moves of it, and other branches, add nothing.
    expect((await eventsOf(push([{ ref: 'refs/heads/main', old_sha: SHA_A, new_sha: SHA_B }]))).map((event) => event.type)).toEqual(['BranchUpdated']);
    expect((await eventsOf(push([{ ref: 'refs/heads/topic', old_sha: null, new_sha: SHA_A }]))).map((event) => event.type)).toEqual(['BranchCreated']);
  });

  it('adds nothing at level 0 (no protection)', async () => {
    const { ok, push, eventsOf } = await given();
    await ok(system, { type: 'ChangeSettings', changes: { default_branch_protection: 0 } });
    expect((await eventsOf(push([{ ref: 'refs/heads/main', old_sha: null, new_sha: SHA_A }]))).map((event) => event.type)).toEqual(['BranchCreated']);
  });

  it("moves HEAD to Gitaly's fallback default when HEAD names no branch of the push, and protects that branch", async () => {
    const { push, eventsOf } = await given();
    const pushed = async (names: string[]) =>
      (await eventsOf(push(names.map((name) => ({ ref: `refs/heads/${name}`, old_sha: null, new_sha: SHA_A }))))).map((event) => [
        event.type,
        (event.data as { name?: string; default_branch?: string }).name ?? (event.data as { default_branch: string }).default_branch,
      ]);
    // `GetDefaultBranch`: the only branch, else `main`, else `master`, else the first by name.
    expect(await pushed(['zeta', 'master', 'alpha'])).toEqual([
      ['BranchCreated', 'zeta'],
      ['BranchCreated', 'master'],
      ['BranchCreated', 'alpha'],
      ['DefaultBranchChanged', 'master'],
      ['ProtectedBranchCreated', 'master'],
    ]);
  });

  it("refuses a Developer the first push into an empty repository under level 2, not under level 1, nor a fork's import", async () => {
    const { app, ok, run, project, push } = await given();
    await ok(system, userCommand('dave'));
    const dave = findUserByUsername(app.state.users, 'dave')!;
    await ok(system, { type: 'AddMember', source_type: 'Project', source_id: project.id, user_id: dave.id, access_level: 30 });
    const first = push([{ ref: 'refs/heads/main', old_sha: null, new_sha: SHA_A }]) as Extract<ForgefoldCommand, { type: 'UpdateRefs' }>;
    expect(await run(as(dave.id), first)).toEqual(E.left({ _tag: 'BadRequest', message: 'You are not allowed to push code to protected branches on this project.' }));
    expect(E.isRight(await run(as(dave.id), { ...first, imported: true }))).toBe(true);
  });

  it('lets a Developer make the first push under level 1', async () => {
    const { app, ok, run, project, push } = await given();
    await ok(system, { type: 'ChangeSettings', changes: { default_branch_protection: 1 } });
    await ok(system, userCommand('dave'));
    const dave = findUserByUsername(app.state.users, 'dave')!;
    await ok(system, { type: 'AddMember', source_type: 'Project', source_id: project.id, user_id: dave.id, access_level: 30 });
    expect(E.isRight(await run(as(dave.id), push([{ ref: 'refs/heads/main', old_sha: null, new_sha: SHA_A }])))).toBe(true);
  });

  it('lets a user through when any rule matching the branch does (`protected_ref_accessible_to?` is `any?`)', async () => {
    const { app, ok, run, project, push, alice } = await given();
    await ok(as(alice.id), push([{ ref: 'refs/heads/main', old_sha: null, new_sha: SHA_A }]));
    await ok(system, userCommand('dave'));
    const dave = findUserByUsername(app.state.users, 'dave')!;
    await ok(system, { type: 'AddMember', source_type: 'Project', source_id: project.id, user_id: dave.id, access_level: 30 });
    const move = push([{ ref: 'refs/heads/main', old_sha: SHA_A, new_sha: SHA_B }]);
    // `main` is Maintainers' (the default protection) and nothing else matches: refused.
    expect(E.isLeft(await run(as(dave.id), move))).toBe(true);
    // A wildcard rule that lets Developers push matches it too: through.
    await ok(as(alice.id), { type: 'ProtectBranch', project_id: project.id, name: 'ma*', push_access_level: 30, merge_access_level: 40, allow_force_push: false, code_owner_approval_required: false });
    expect(E.isRight(await run(as(dave.id), move))).toBe(true);
  });
});
