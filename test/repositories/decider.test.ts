/**
 * The repositories module's decisions, given/when/then: the events a command emits (the audit contract), or its
 * refusal. Pure: object ids are facts in the commands, no git.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { refPatternMatches, type ForgefoldCommand } from '@forgefold/core';
import { as, makeApp, system, userCommand } from '../core/fixtures.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

/** root (1, admin), dev (2, Developer), rep (3, Reporter), maint (4, Maintainer) on project 1 with `main` at A. */
const given = async () => {
  const fixture = await makeApp();
  await fixture.ok(system, userCommand('root', { is_admin: true }));
  for (const name of ['dev', 'rep', 'maint']) await fixture.ok(system, userCommand(name));
  await fixture.ok(as(1), { type: 'CreateProject', name: 'p' });
  for (const [user, level] of [
    [2, 30],
    [3, 20],
    [4, 40],
  ] as const) {
    await fixture.ok(as(1), { type: 'AddMember', source_type: 'Project', source_id: 1, user_id: user, access_level: level } as ForgefoldCommand);
  }
  await fixture.ok(as(1), { type: 'UpdateRefs', project_id: 1, via: 'api', changes: [{ ref: 'refs/heads/main', old_sha: null, new_sha: A }] });
  const when = async (actor: number | null, command: ForgefoldCommand) => {
    const result = await fixture.run(actor === null ? system : as(actor), command);
    return E.isLeft(result) ? { error: result.left } : { events: result.right.events.map((event) => ({ type: event.type, data: event.data })) };
  };
  return { ...fixture, when };
};

const move = (ref: string, old_sha: string | null, new_sha: string | null, extra: object = {}) => ({ ref, old_sha, new_sha, ...extra });
const tag = { commit_sha: A, committed_date: '2026-01-01T00:00:00.000+00:00', message: 'Release', tagger: { name: 'Dev', email: 'dev@example.com', date: '2026-01-01T00:00:00+00:00' } };

describe('UpdateRefs', () => {
  it('records each move with old and new object ids and how it came', async () => {
    const { when } = await given();
    const result = await when(2, {
      type: 'UpdateRefs',
      project_id: 1,
      via: 'push',
      changes: [move('refs/heads/main', A, B, { forced: false }), move('refs/heads/topic', null, C), move('refs/tags/v1', null, A, { tag })],
    });
    expect(result).toEqual({
      events: [
        { type: 'BranchUpdated', data: { project_id: 1, name: 'main', old_sha: A, new_sha: B, forced: false, via: 'push' } },
        { type: 'BranchCreated', data: { project_id: 1, name: 'topic', sha: C, via: 'push' } },
        { type: 'TagCreated', data: { project_id: 1, name: 'v1', target: A, commit_sha: A, committed_date: tag.committed_date, message: 'Release', tagger: tag.tagger, via: 'push' } },
      ],
    });
  });

  it('refuses a move that does not start from the value the log holds (compare-and-swap)', async () => {
    const { when } = await given();
    expect(await when(2, { type: 'UpdateRefs', project_id: 1, via: 'api', changes: [move('refs/heads/main', B, C)] })).toEqual({
      error: { _tag: 'BadRequest', message: 'Could not update refs/heads/main. Please refresh and try again.' },
    });
  });

  it('refuses reporters, refs outside branches and tags, the default branch deletion and 40-hex branch names', async () => {
    const { when } = await given();
    const refusal = async (actor: number, change: ReturnType<typeof move>, via: 'api' | 'push' = 'push') =>
      ((await when(actor, { type: 'UpdateRefs', project_id: 1, via, changes: [change] })) as { error: { message: string } }).error.message;
    expect(await refusal(3, move('refs/heads/x', null, A))).toBe('You are not allowed to push code to this project.');
    expect(await refusal(2, move('refs/notes/x', null, A))).toBe('You can only push branches and tags to this project.');
    expect(await refusal(4, move('refs/heads/main', A, null))).toBe('The default branch of a project cannot be deleted.');
    expect(await refusal(2, move(`refs/heads/${B}`, null, A))).toBe('You cannot create a branch with a 40-character hexadecimal branch name.');
  });

  it('enforces protected tags: create by level, never update, delete by maintainers from the API only', async () => {
    const { when, ok } = await given();
    const protect = await when(4, { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 40 });
    expect(protect).toEqual({
      events: [{ type: 'ProtectedTagCreated', data: { project_id: 1, id: 1, name: 'v*', create_access_levels: [{ id: 1, access_level: 40 }], created_at: '2026-01-01T00:00:00.000Z' } }],
    });
    const refusal = async (actor: number, change: ReturnType<typeof move>, via: 'api' | 'push') =>
      ((await when(actor, { type: 'UpdateRefs', project_id: 1, via, changes: [change] })) as { error?: { message: string } }).error?.message;
    expect(await refusal(2, move('refs/tags/v1', null, A, { tag }), 'push')).toBe('You are not allowed to create this tag as it is protected.');
    expect(await refusal(2, move('refs/tags/other', null, A, { tag }), 'push')).toBeUndefined();
    await ok(as(4), { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/tags/v1', null, A, { tag })] });
    expect(await refusal(4, move('refs/tags/v1', A, B, { tag }), 'push')).toBe('Protected tags cannot be updated.');
    expect(await refusal(2, move('refs/tags/v1', A, null), 'api')).toBe(
      'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
    );
    expect(await refusal(4, move('refs/tags/v1', A, null), 'push')).toBe('You can only delete protected tags using the web interface.');
    expect(await refusal(4, move('refs/tags/v1', A, null), 'api')).toBeUndefined();
    // "No one" is no one, administrators included.
    await ok(as(4), { type: 'ProtectTag', project_id: 1, name: 'frozen', create_access_level: 0 });
    expect(await refusal(1, move('refs/tags/frozen', null, A, { tag }), 'api')).toBe('You are not allowed to create this tag as it is protected.');
  });

  it('enforces protected branches: push level, force pushes, creation and deletion rules', async () => {
    const { when, ok } = await given();
    await ok(as(4), { type: 'ProtectBranch', project_id: 1, name: 'main', push_access_level: 40, merge_access_level: 30, allow_force_push: false, code_owner_approval_required: false });
    await ok(as(4), { type: 'ProtectBranch', project_id: 1, name: 'release/*', push_access_level: 30, merge_access_level: 30, allow_force_push: false, code_owner_approval_required: false });
    const refusal = async (actor: number, change: ReturnType<typeof move>, via: 'api' | 'push' = 'push') =>
      ((await when(actor, { type: 'UpdateRefs', project_id: 1, via, changes: [change] })) as { error?: { message: string } }).error?.message;
    expect(await refusal(2, move('refs/heads/main', A, B, { forced: false }))).toBe('You are not allowed to push code to protected branches on this project.');
    expect(await refusal(4, move('refs/heads/main', A, B, { forced: true }))).toBe('You are not allowed to force push code to a protected branch on this project.');
    // Developers may create a branch of a pattern that lets them push (the move is recorded).
    expect(await refusal(2, move('refs/heads/release/1.0', null, A))).toBeUndefined();
    expect(await refusal(2, move('refs/heads/release/1.0', A, null))).toBe(
      'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
    );
    expect(await refusal(4, move('refs/heads/release/1.0', A, null))).toBe('You can only delete protected branches using the web interface.');
    expect(await refusal(4, move('refs/heads/release/1.0', A, null), 'api')).toBeUndefined();
  });

  it('records protected refs with their rules; duplicates and unknown levels are refused', async () => {
    const { when } = await given();
    expect(await when(2, { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 40 })).toEqual({ error: { _tag: 'Forbidden' } });
    await when(4, { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 30 });
    expect(await when(4, { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 40 })).toEqual({ error: { _tag: 'Validation', errors: { name: ['has already been taken'] } } });
    expect(await when(4, { type: 'ProtectTag', project_id: 1, name: 'w*', create_access_level: 20 })).toEqual({
      error: { _tag: 'Validation', errors: { create_access_level: ['is not included in the list'] } },
    });
    expect(await when(4, { type: 'UnprotectTag', project_id: 1, name: 'nope' })).toEqual({ error: { _tag: 'NotFound', message: '404 Not found' } });
    expect(await when(4, { type: 'UnprotectTag', project_id: 1, name: 'v*' })).toEqual({ events: [{ type: 'ProtectedTagDeleted', data: { project_id: 1, id: 1 } }] });
  });
});

describe('wildcards', () => {
  it('match as the platform: `*` is any run of characters, slashes included; everything else is literal', () => {
    expect(refPatternMatches('v*', 'v1.0')).toBe(true);
    expect(refPatternMatches('release/*', 'release/1/hotfix')).toBe(true);
    expect(refPatternMatches('*-stable', '14-0-stable')).toBe(true);
    expect(refPatternMatches('v1.*', 'v1x0')).toBe(false);
    expect(refPatternMatches('v1.0', 'v1.0')).toBe(true);
    expect(refPatternMatches('v1.0', 'v1.00')).toBe(false);
    expect(refPatternMatches('', '')).toBe(false);
  });
});
