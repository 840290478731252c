/**
 * Property: after any sequence of API writes and pushes (some refused by protections), the repository's refs equal
 * the refs the log recorded, and replaying the log from the store yields the state the server holds. Releases ride
 * along: made from a ref (their tag created with them), deleted, and taken along by a tag deleted through the API.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findRepository, foldLog, forgefold, repositoryRefs, stateHash, type State } from '@forgefold/core';
import { GitRepositories } from '@forgefold/git';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { client, clientEnv } from '../git/support.js';
import { ROOT_TOKEN, newDataDir, removeDir, start, type Running } from './support.js';

const BRANCHES = ['main', 'b1', 'b2'] as const;
const TAGS = ['t1', 't2', 'v1'] as const;

type Op =
  | { kind: 'apiCommit'; branch: string; from: string }
  | { kind: 'apiBranch'; branch: string; from: string }
  | { kind: 'apiDeleteBranch'; branch: string }
  | { kind: 'apiTag'; tag: string; from: string; annotated: boolean }
  | { kind: 'apiDeleteTag'; tag: string }
  | { kind: 'protectTags'; pattern: string }
  | { kind: 'mergeRequest'; source: string; target: string }
  | { kind: 'push'; branch: string }
  | { kind: 'forcePush'; branch: string }
  | { kind: 'pushTag'; tag: string; annotated: boolean }
  | { kind: 'pushDelete'; ref: string }
  | { kind: 'release'; tag: string }
  | { kind: 'deleteRelease'; tag: string };

const branch = fc.constantFrom(...BRANCHES);
const tag = fc.constantFrom(...TAGS);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('apiCommit' as const), branch, from: branch }),
  fc.record({ kind: fc.constant('apiBranch' as const), branch, from: fc.oneof(branch, tag) }),
  fc.record({ kind: fc.constant('apiDeleteBranch' as const), branch }),
  fc.record({ kind: fc.constant('apiTag' as const), tag, from: branch, annotated: fc.boolean() }),
  fc.record({ kind: fc.constant('apiDeleteTag' as const), tag }),
  fc.record({ kind: fc.constant('protectTags' as const), pattern: fc.constantFrom('v*', 't1') }),
  fc.record({ kind: fc.constant('mergeRequest' as const), source: branch, target: branch }),
  fc.record({ kind: fc.constant('push' as const), branch }),
  fc.record({ kind: fc.constant('forcePush' as const), branch }),
  fc.record({ kind: fc.constant('pushTag' as const), tag, annotated: fc.boolean() }),
  fc.record({ kind: fc.constant('pushDelete' as const), ref: fc.oneof(branch.map((b) => `refs/heads/${b}`), tag.map((t) => `refs/tags/${t}`)) }),
  fc.record({ kind: fc.constant('release' as const), tag }),
  fc.record({ kind: fc.constant('deleteRelease' as const), tag }),
);

const run = async (server: Running, work: string, projectId: number, path: string, ops: readonly Op[]): Promise<void> => {
  const env = clientEnv(work);
  const { host } = new URL(server.url);
  const repo = join(work, 'clone');
  await client(work, ['clone', '--quiet', `http://root:${ROOT_TOKEN}@${host}/${path}.git`, repo], env);
  const git = (...args: string[]) => client(repo, args, env);
  let n = 0;
  const checkout = async (name: string) => {
    await git('fetch', '--quiet', '--prune', '--prune-tags', '--force', 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
    const exists = (await git('rev-parse', '--verify', '--quiet', `origin/${name}`)).code === 0;
    const base = exists ? `origin/${name}` : (await git('rev-parse', '--verify', '--quiet', 'origin/main')).code === 0 ? 'origin/main' : null;
    if (base) await git('checkout', '--quiet', '-B', name, base);
    else await git('checkout', '--quiet', '--orphan', name);
    return exists;
  };
  for (const step of ops) {
    n++;
    const p = `/projects/${projectId}`;
    switch (step.kind) {
      case 'apiCommit':
        await server.call('POST', `${p}/repository/commits`, { branch: step.branch, start_branch: step.from, commit_message: `api ${n}`, actions: [{ action: 'create', file_path: `f${n}.txt`, content: `${n}` }] });
        break;
      case 'apiBranch':
        await server.call('POST', `${p}/repository/branches`, { branch: step.branch, ref: step.from });
        break;
      case 'apiDeleteBranch':
        await server.call('DELETE', `${p}/repository/branches/${step.branch}`);
        break;
      case 'apiTag':
        await server.call('POST', `${p}/repository/tags`, { tag_name: step.tag, ref: step.from, ...(step.annotated ? { message: `tag ${n}` } : {}) });
        break;
      case 'apiDeleteTag':
        await server.call('DELETE', `${p}/repository/tags/${step.tag}`);
        break;
      case 'protectTags':
        await server.call('POST', `${p}/protected_tags`, { name: step.pattern, create_access_level: 0 });
        break;
      case 'mergeRequest': {
        const mr = await server.call('POST', `${p}/merge_requests`, { title: `mr ${n}`, source_branch: step.source, target_branch: step.target });
        if (mr.status === 201) await server.call('PUT', `${p}/merge_requests/${mr.body.iid}/merge`);
        break;
      }
      case 'push':
        await checkout(step.branch);
        await git('commit', '--quiet', '--allow-empty', '-m', `push ${n}`);
        await git('push', '--quiet', 'origin', `HEAD:refs/heads/${step.branch}`);
        break;
      case 'forcePush':
        if (await checkout(step.branch)) await git('reset', '--quiet', '--hard', 'HEAD~1');
        await git('commit', '--quiet', '--allow-empty', '-m', `rewrite ${n}`);
        await git('push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${step.branch}`);
        break;
      case 'pushTag':
        await checkout('main');
        await git('tag', '-f', ...(step.annotated ? ['-a', '-m', `pushed ${n}`] : []), step.tag);
        await git('push', '--quiet', '--force', 'origin', `refs/tags/${step.tag}`);
        break;
      case 'pushDelete':
        await git('push', '--quiet', 'origin', `:${step.ref}`);
        break;
      case 'release':
        await server.call('POST', `${p}/releases`, { tag_name: step.tag, ref: 'main', description: `release ${n}` });
        break;
      case 'deleteRelease':
        await server.call('DELETE', `${p}/releases/${step.tag}`);
        break;
    }
  }
};

describe('repositories and the log', () => {
  it('agree after any sequence of API writes and pushes, and replay yields the same state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), fc.boolean(), async (ops, readme) => {
        const dataDir = newDataDir();
        const work = mkdtempSync(join(tmpdir(), 'forgefold-prop-'));
        const server = await start(dataDir);
        let live: State;
        let projectId: number;
        try {
          const project = (await server.call('POST', '/projects', { name: 'Prop', initialize_with_readme: readme })).body;
          projectId = project.id;
          await run(server, work, project.id, project.path_with_namespace, ops);
          live = server.app.state;
        } finally {
          await server.close();
          removeDir(work);
        }
        try {
          const storage = new GitRepositories({ root: join(dataDir, 'repositories') });
          const refs = await storage.open(projectId).refs();
          await storage.close();
          expect(refs._tag === 'Right' ? refs.right : refs.left).toEqual(repositoryRefs(findRepository(live.repositories, projectId)!));
          const store = openSqliteStore({ path: join(dataDir, 'forgefold.db'), readonly: true });
          try {
            const replayed = await foldLog({ ...forgefold, store: store.events }, forgefold.decider.initialState(), 0, true);
            expect(stateHash(replayed.state)).toBe(stateHash(live));
          } finally {
            await store.close();
          }
        } finally {
          removeDir(dataDir);
        }
      }),
      { numRuns: Number(process.env['FORGEFOLD_PROPERTY_RUNS'] ?? 6), endOnFailure: true },
    );
  }, 600_000);
});
