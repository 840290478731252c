/**
 * Deployments and environments over HTTP against a real server and real git (lib/api/deployments.rb,
 * environments.rb, 14.7; reference §3): statuses, bodies, the status machine, iids, idempotent creates, lists,
 * and the merge requests a deployment shipped, from git ancestry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { mergeRequestsOf } from '@forgefold/core';
import type { ApiDeps } from '../../packages/http-adapter/src/app/deps.js';
import { shippedByDeployments } from '../../packages/http-adapter/src/resources/deployments/shipped.js';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path_with_namespace: string };
let dev: { id: number; token: string };
let reporter: { id: number; token: string };
let main: string;

const base = () => `/projects/${project.id}`;
const commit = (branch: string, file: string, extra: object = {}) =>
  server.call('POST', `${base()}/repository/commits`, { branch, commit_message: `Change ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }], ...extra }, dev.token);
const deploy = (body: object, token = dev.token) => server.call('POST', `${base()}/deployments`, body, token);

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  project = (await server.call('POST', '/projects', { name: 'Shipping', initialize_with_readme: true })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
  main = (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id;
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('deployments', () => {
  it('creates a deployment and its environment on first use; deployable is null; iids count per project', async () => {
    const first = await deploy({ environment: 'production', sha: main, ref: 'main', tag: false, status: 'running' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(Number),
      iid: 1,
      ref: 'main',
      sha: main,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      user: expect.objectContaining({ id: dev.id, username: 'dev', state: 'active' }),
      environment: { id: expect.any(Number), name: 'production', slug: 'production', external_url: null },
      deployable: null,
      status: 'running',
    });
    const second = await deploy({ environment: 'Review/Feature 1', sha: main, ref: 'main', tag: false, status: 'success' });
    expect(second.body.iid).toBe(2);
    expect(second.body.environment.slug).toMatch(/^review-feature-1-[a-z0-9]{6}$/);
    const environments = await server.call('GET', `${base()}/environments`, undefined, reporter.token);
    expect(environments.body.map((environment: { name: string }) => environment.name)).toEqual(['production', 'Review/Feature 1']);
  });

  it('refuses what the platform refuses, changing nothing', async () => {
    const before = server.events.length;
    expect(await deploy({ environment: 'production', sha: main, ref: 'main', tag: false })).toMatchObject({ status: 400, body: { error: 'status is missing' } });
    expect(await deploy({ environment: 'production', sha: main, ref: 'main', tag: false, status: 'created' })).toMatchObject({ status: 400, body: { error: 'status does not have a valid value' } });
    expect(await deploy({ environment: 'production', sha: 'f'.repeat(40), ref: 'nope', tag: false, status: 'success' })).toMatchObject({
      status: 400,
      body: { message: { sha: ['The commit does not exist'], ref: ['The branch or tag does not exist'] } },
    });
    expect(await deploy({ environment: 'production', sha: main, ref: 'main', tag: false, status: 'success' }, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('POST', '/projects/9999/deployments', { environment: 'x', sha: main, ref: 'main', tag: false, status: 'success' })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('GET', `${base()}/deployments`, undefined, null)).toMatchObject({ status: 401 });
    expect(await server.call('GET', `${base()}/deployments/999`, undefined, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // No DELETE in 14.7: the router's answer for a known path and another method (405 here, project-wide).
    expect([404, 405]).toContain((await server.call('DELETE', `${base()}/deployments/1`)).status);
    expect(server.events.length).toBe(before);
  });

  it('moves statuses through the machine exactly as the platform does', async () => {
    const { body } = await deploy({ environment: 'staging', sha: main, ref: 'main', tag: false, status: 'running' });
    const put = (status: string, token = dev.token) => server.call('PUT', `${base()}/deployments/${body.id}`, { status }, token);
    expect(await put('failed')).toMatchObject({ status: 200, body: { status: 'failed' } });
    expect(await put('running')).toMatchObject({ status: 400, body: { message: { status: ['cannot transition via "run"'] } } });
    expect(await put('failed')).toMatchObject({ status: 400, body: { message: { status: ['cannot transition via "drop"'] } } });
    expect(await put('success')).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await put('success')).toMatchObject({ status: 400, body: { message: { status: ['cannot transition via "succeed"'] } } });
    expect(await put('created')).toMatchObject({ status: 400, body: { error: 'status does not have a valid value' } });
    expect(await put('canceled', reporter.token)).toMatchObject({ status: 403 });
    const changes = server.events.filter((event) => event.type === 'DeploymentStatusChanged').map((event) => (event.data as { event: string }).event);
    expect(changes).toEqual(['drop', 'succeed']);
  });

  it('returns the last successful deployment for an identical success (201, same id)', async () => {
    const once = await deploy({ environment: 'canary', sha: main, ref: 'main', tag: false, status: 'success' });
    const again = await deploy({ environment: 'canary', sha: main, ref: 'main', tag: false, status: 'success' });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(once.body.id);
    const running = await deploy({ environment: 'canary', sha: main, ref: 'main', tag: false, status: 'running' });
    expect(running.body.id).not.toBe(once.body.id);
  });

  it('lists with order_by, sort, environment, status, updated_after and pagination', async () => {
    const all = await server.call('GET', `${base()}/deployments`, undefined, reporter.token);
    expect(all.status).toBe(200);
    const ids = all.body.map((deployment: { id: number }) => deployment.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(all.headers.get('x-total')).toBe(String(ids.length));
    const desc = await server.call('GET', `${base()}/deployments?sort=desc&per_page=2`, undefined, reporter.token);
    expect(desc.body.map((deployment: { id: number }) => deployment.id)).toEqual([...ids].reverse().slice(0, 2));
    expect(desc.headers.get('x-next-page')).toBe('2');
    const page2 = await server.call('GET', `${base()}/deployments?sort=desc&per_page=2&page=2`, undefined, reporter.token);
    expect(page2.body.map((deployment: { id: number }) => deployment.id)).toEqual([...ids].reverse().slice(2, 4));
    const canary = await server.call('GET', `${base()}/deployments?environment=canary`, undefined, reporter.token);
    expect(canary.body.map((deployment: { status: string }) => deployment.status)).toEqual(['success', 'running']);
    const successes = await server.call('GET', `${base()}/deployments?status=success&order_by=ref`, undefined, reporter.token);
    expect(successes.body.every((deployment: { status: string }) => deployment.status === 'success')).toBe(true);
    const future = await server.call('GET', `${base()}/deployments?updated_after=2100-01-01T00:00:00Z`, undefined, reporter.token);
    expect(future.body).toEqual([]);
    const byUpdated = await server.call('GET', `${base()}/deployments?order_by=updated_at&sort=desc`, undefined, reporter.token);
    const stamps = byUpdated.body.map((deployment: { updated_at: string }) => deployment.updated_at);
    expect(stamps).toEqual([...stamps].sort().reverse());
    expect(await server.call('GET', `${base()}/deployments?order_by=sha`, undefined, reporter.token)).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
    expect(await server.call('GET', `${base()}/deployments?status=bogus`, undefined, reporter.token)).toMatchObject({ status: 400, body: { error: 'status does not have a valid value' } });
    expect(await server.call('GET', `${base()}/deployments?environment=none`, undefined, reporter.token)).toMatchObject({ status: 200, body: [] });
  });

  it('lists the merge requests merged into the ref between the previous successful deployment and this one', async () => {
    const first = await deploy({ environment: 'mr-env', sha: main, ref: 'main', tag: false, status: 'success' });
    expect((await server.call('GET', `${base()}/deployments/${first.body.id}/merge_requests`, undefined, reporter.token)).body).toEqual([]);
    const merge = async (branch: string) => {
      await commit(branch, `${branch}.txt`, { start_branch: 'main' });
      const mr = await server.call('POST', `${base()}/merge_requests`, { title: `Add ${branch}`, source_branch: branch, target_branch: 'main' }, dev.token);
      const merged = await server.call('PUT', `${base()}/merge_requests/${mr.body.iid}/merge`, {}, dev.token);
      expect(merged.status).toBe(200);
      return merged.body;
    };
    const one = await merge('one');
    const two = await merge('two');
    const head = (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id;
    const second = await deploy({ environment: 'mr-env', sha: head, ref: 'main', tag: false, status: 'success' });
    const shipped = await server.call('GET', `${base()}/deployments/${second.body.id}/merge_requests`, undefined, reporter.token);
    expect(shipped.status).toBe(200);
    expect(shipped.body.map((mr: { iid: number }) => mr.iid).sort()).toEqual([one.iid, two.iid].sort());
    expect(shipped.body[0]).toMatchObject({ state: 'merged', target_branch: 'main', project_id: project.id });
    const three = await merge('three');
    const head2 = (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id;
    const third = await deploy({ environment: 'mr-env', sha: head2, ref: 'main', tag: false, status: 'success' });
    const later = await server.call('GET', `${base()}/deployments/${third.body.id}/merge_requests`, undefined, reporter.token);
    expect(later.body.map((mr: { iid: number }) => mr.iid)).toEqual([three.iid]);
    const failed = await deploy({ environment: 'mr-env', sha: head2, ref: 'main', tag: false, status: 'failed' });
    expect((await server.call('GET', `${base()}/deployments/${failed.body.id}/merge_requests`, undefined, reporter.token)).body).toEqual([]);
  });

  it("filters a deployment's merge requests by environment, deployed_before and deployed_after (MergeRequestsFinder#by_deployments)", async () => {
    await commit('four', 'four.txt', { start_branch: 'main' });
    const mr = await server.call('POST', `${base()}/merge_requests`, { title: 'Add four', source_branch: 'four', target_branch: 'main' }, dev.token);
    expect((await server.call('PUT', `${base()}/merge_requests/${mr.body.iid}/merge`, {}, dev.token)).status).toBe(200);
    const head = (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id;
    const shipped = await deploy({ environment: 'mr-env', sha: head, ref: 'main', tag: false, status: 'success' });
    // Created successful: `finished_at` is its creation time; the finder compares it strictly.
    const finished = shipped.body.created_at as string;
    const iids = async (query: string) => {
      const answer = await server.call('GET', `${base()}/deployments/${shipped.body.id}/merge_requests?${query}`, undefined, reporter.token);
      expect(answer.status).toBe(200);
      return answer.body.map((row: { iid: number }) => row.iid);
    };
    const at = (ms: number) => encodeURIComponent(new Date(Date.parse(finished) + ms).toISOString());
    expect(await iids('')).toEqual([mr.body.iid]);
    expect(await iids('environment=mr-env')).toEqual([mr.body.iid]);
    expect(await iids('environment=production')).toEqual([]);
    // A blank name is a name in Ruby (`deployed_to('')`): no environment has it.
    expect(await iids('environment=')).toEqual([]);
    expect(await iids(`deployed_after=${at(-1000)}`)).toEqual([mr.body.iid]);
    expect(await iids(`deployed_after=${at(0)}`)).toEqual([]);
    expect(await iids(`deployed_before=${at(1000)}`)).toEqual([mr.body.iid]);
    expect(await iids(`deployed_before=${at(0)}`)).toEqual([]);
    expect(await iids(`environment=mr-env&deployed_after=${at(-1000)}&deployed_before=${at(1000)}`)).toEqual([mr.body.iid]);
    expect(await iids('deployed_before=2000-01-01')).toEqual([]);
    expect(await iids('deployed_after=2000-01-01')).toEqual([mr.body.iid]);
    // What no time parses from filters nothing (the later finder's `parse_datetime`; 14.7's SQL cast failed with 500).
    expect(await iids('deployed_before=soon')).toEqual([mr.body.iid]);
    // The route declares `merge_requests_base_params`, which has no `iids`: `declared_params` drops it.
    expect(await iids(`iids[]=${mr.body.iid + 100}`)).toEqual([mr.body.iid]);
  });

  it('filters the project and user merge request lists by the deployments that shipped them', async () => {
    const mergeBranch = async (branch: string) => {
      await commit(branch, `${branch}.txt`, { start_branch: 'main' });
      const mr = await server.call('POST', `${base()}/merge_requests`, { title: `Add ${branch}`, source_branch: branch, target_branch: 'main' }, dev.token);
      expect((await server.call('PUT', `${base()}/merge_requests/${mr.body.iid}/merge`, {}, dev.token)).status).toBe(200);
      return mr.body.iid as number;
    };
    const headOfMain = async () => (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id as string;
    const five = await mergeBranch('five');
    // The environment's first successful deployment ships everything merged into its ref so far.
    const first = await deploy({ environment: 'filter-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    const six = await mergeBranch('six');
    const second = await deploy({ environment: 'filter-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    // Merged, not deployed to filter-env.
    const seven = await mergeBranch('seven');
    const sorted = (rows: { iid: number; project_id: number }[]) => rows.filter((row) => row.project_id === project.id).map((row) => row.iid).sort((a, b) => a - b);
    const lists = async (query: string) => {
      const own = await server.call('GET', `${base()}/merge_requests?${query}`, undefined, reporter.token);
      const all = await server.call('GET', `/merge_requests?scope=all&${query}`, undefined, reporter.token);
      expect([own.status, all.status]).toEqual([200, 200]);
      expect(sorted(all.body)).toEqual(sorted(own.body));
      return sorted(own.body);
    };
    const merged = await lists('state=merged');
    expect(merged).toEqual(expect.arrayContaining([five, six, seven]));
    const before = merged.filter((iid) => iid !== six && iid !== seven);
    const at = (deployment: { body: { created_at: string } }, ms: number) => encodeURIComponent(new Date(Date.parse(deployment.body.created_at) + ms).toISOString());
    expect(await lists('environment=filter-env')).toEqual([...before, six]);
    expect(await lists('environment=filter-env&state=opened')).toEqual([]);
    expect(await lists('environment=elsewhere')).toEqual([]);
    expect(await lists('environment=')).toEqual([]);
    expect(await lists(`environment=filter-env&deployed_after=${at(first, 0)}`)).toEqual([six]);
    expect(await lists(`environment=filter-env&deployed_before=${at(second, 0)}`)).toEqual(before);
    expect(await lists(`deployed_after=${at(second, -1000)}&deployed_before=${at(second, 1000)}`)).toEqual([six]);
    expect(await lists(`deployed_after=${at(second, 0)}`)).toEqual([]);
    expect(await lists('deployed_before=soon')).toEqual(merged);
    expect(merged).not.toContain(undefined);
    expect(seven).toBeGreaterThan(six);
  });

  it('links nothing to a review app (a name with a folder) and, after a previous deployment, whatever the merge request targeted', async () => {
    const headOfMain = async () => (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id as string;
    const iidsOf = async (deployment: { body: { id: number } }) =>
      (await server.call('GET', `${base()}/deployments/${deployment.body.id}/merge_requests`, undefined, reporter.token)).body.map((row: { iid: number }) => row.iid).sort((a: number, b: number) => a - b);
    const mergeInto = async (source: string, target: string) => {
      const mr = await server.call('POST', `${base()}/merge_requests`, { title: `${source} into ${target}`, source_branch: source, target_branch: target }, dev.token);
      expect((await server.call('PUT', `${base()}/merge_requests/${mr.body.iid}/merge`, {}, dev.token)).status).toBe(200);
      return mr.body.iid as number;
    };
    const firstReview = await deploy({ environment: 'review/eight', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    const firstRange = await deploy({ environment: 'range-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    expect(await iidsOf(firstRange)).not.toEqual([]);
    // `LinkMergeRequestsService`: `return if deployment.environment.environment_type` (review apps link nothing).
    expect(await iidsOf(firstReview)).toEqual([]);
    // A merge request into a side branch, the side branch then merged into main.
    await commit('side', 'side.txt', { start_branch: 'main' });
    await commit('eight', 'eight.txt', { start_branch: 'side' });
    const intoSide = await mergeInto('eight', 'side');
    const intoMain = await mergeInto('side', 'main');
    const review = await deploy({ environment: 'review/eight', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    const range = await deploy({ environment: 'range-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    expect(await iidsOf(review)).toEqual([]);
    // `link_merge_requests_for_range`: `merged.by_merge_commit_sha(range)`, no target branch condition.
    expect(await iidsOf(range)).toEqual([intoSide, intoMain].sort((a, b) => a - b));
    const listed = async (query: string) =>
      (await server.call('GET', `${base()}/merge_requests?${query}`, undefined, reporter.token)).body.map((row: { iid: number }) => row.iid).sort((a: number, b: number) => a - b);
    expect(await listed('environment=review/eight')).toEqual([]);
    expect(await listed(`environment=range-env&deployed_after=${encodeURIComponent(firstRange.body.created_at)}`)).toEqual([intoSide, intoMain].sort((a, b) => a - b));
  });

  it('keeps what a deployment shipped when its status changes after success, and ranges from the previous one it had then', async () => {
    const headOfMain = async () => (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id as string;
    const iidsOf = async (deployment: number, query = '') =>
      (await server.call('GET', `${base()}/deployments/${deployment}/merge_requests?${query}`, undefined, reporter.token)).body.map((row: { iid: number }) => row.iid);
    const mergeBranch = async (branch: string) => {
      await commit(branch, `${branch}.txt`, { start_branch: 'main' });
      const mr = await server.call('POST', `${base()}/merge_requests`, { title: `Add ${branch}`, source_branch: branch, target_branch: 'main' }, dev.token);
      expect((await server.call('PUT', `${base()}/merge_requests/${mr.body.iid}/merge`, {}, dev.token)).status).toBe(200);
      return mr.body.iid as number;
    };
    await deploy({ environment: 'relink-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    const ten = await mergeBranch('ten');
    const running = (await deploy({ environment: 'relink-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'running' })).body.id as number;
    const eleven = await mergeBranch('eleven');
    const later = (await deploy({ environment: 'relink-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' })).body.id as number;
    expect(await iidsOf(later)).toEqual(expect.arrayContaining([ten, eleven]));
    // `running` succeeds after `later`: its previous successful deployment (lower id) is the first one, as it was then.
    expect((await server.call('PUT', `${base()}/deployments/${running}`, { status: 'success' }, dev.token)).status).toBe(200);
    expect(await iidsOf(running)).toEqual([ten]);
    // `later` was linked when it succeeded, from the first: a success with a lower id since changes nothing.
    expect((await iidsOf(later)).sort((a: number, b: number) => a - b)).toEqual([ten, eleven]);
    // Failed afterwards: the links made on success stay (DeploymentMergeRequest rows), `finished_at` moves.
    expect((await server.call('PUT', `${base()}/deployments/${running}`, { status: 'failed' }, dev.token)).status).toBe(200);
    expect(await iidsOf(running)).toEqual([ten]);
    expect(await iidsOf(running, 'environment=relink-env')).toEqual([ten]);
    const listed = await server.call('GET', `${base()}/merge_requests?environment=relink-env`, undefined, reporter.token);
    expect(listed.body.map((row: { iid: number }) => row.iid)).toEqual(expect.arrayContaining([ten, eleven]));
    // A deployment created failed never succeeded: nothing.
    const failed = (await deploy({ environment: 'relink-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'failed' })).body.id as number;
    expect(await iidsOf(failed)).toEqual([]);
  });

  it('adds the range from the previous successful deployment it then has each time a deployment succeeds again', async () => {
    const headOfMain = async () => (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id as string;
    const iidsOf = async (deployment: number, query = '') =>
      (await server.call('GET', `${base()}/deployments/${deployment}/merge_requests?${query}`, undefined, reporter.token)).body.map((row: { iid: number }) => row.iid).sort((a: number, b: number) => a - b);
    const mergeBranch = async (branch: string) => {
      await commit(branch, `${branch}.txt`, { start_branch: 'main' });
      const mr = await server.call('POST', `${base()}/merge_requests`, { title: `Add ${branch}`, source_branch: branch, target_branch: 'main' }, dev.token);
      expect((await server.call('PUT', `${base()}/merge_requests/${mr.body.iid}/merge`, {}, dev.token)).status).toBe(200);
      return mr.body.iid as number;
    };
    const status = async (id: number, to: string) => expect((await server.call('PUT', `${base()}/deployments/${id}`, { status: to }, dev.token)).status).toBe(200);
    await deploy({ environment: 'rollback-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' });
    const twelve = await mergeBranch('twelve');
    const second = (await deploy({ environment: 'rollback-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' })).body.id as number;
    const thirteen = await mergeBranch('thirteen');
    const third = (await deploy({ environment: 'rollback-env', sha: await headOfMain(), ref: 'main', tag: false, status: 'success' })).body.id as number;
    expect(await iidsOf(second)).toEqual([twelve]);
    expect(await iidsOf(third)).toEqual([thirteen]);
    // The second is dropped, the third too, then the third succeeds again: `LinkMergeRequestWorker` runs again, its
    // previous deployment is now the first, and `ON CONFLICT DO NOTHING` adds the rows of that wider range.
    await status(second, 'failed');
    await status(third, 'failed');
    await status(third, 'success');
    expect(await iidsOf(third)).toEqual([twelve, thirteen]);
    expect(await iidsOf(second)).toEqual([twelve]);
    const listed = await server.call('GET', `${base()}/merge_requests?environment=rollback-env`, undefined, reporter.token);
    expect(listed.body.map((row: { iid: number }) => row.iid)).toEqual(expect.arrayContaining([twelve, thirteen]));
  });

  it('reads git only for merged rows, stops once every one was found shipped, and reads a range once', async () => {
    await commit('nine', 'nine.txt', { start_branch: 'main' });
    expect((await server.call('POST', `${base()}/merge_requests`, { title: 'Add nine', source_branch: 'nine', target_branch: 'main' }, dev.token)).status).toBe(201);
    const state = server.app.state;
    const calls: string[] = [];
    // Every commit "shipped": the range holds every merged merge request's merge commit.
    const shas = mergeRequestsOf(state.repositories, project.id).flatMap((mr) => (mr.merge_commit_sha ? [mr.merge_commit_sha] : []));
    const deps = {
      repositories: {
        open: () => ({
          commitsBetween: async (from: string | null, to: string) => {
            calls.push(`${from}..${to}`);
            return E.right({ items: shas.map((id) => ({ id })), total: shas.length });
          },
        }),
      },
    } as unknown as ApiDeps;
    const all = mergeRequestsOf(state.repositories, project.id);
    const opened = all.filter((mr) => mr.state !== 'merged');
    expect(opened).not.toEqual([]);
    expect(await shippedByDeployments(deps, state, opened, { environment: 'filter-env' })).toEqual([]);
    expect(calls).toEqual([]);
    // The first deployment links only what was merged into its ref (`eight` targeted `side`).
    const merged = all.filter((mr) => mr.state === 'merged' && mr.target_branch === 'main');
    expect(merged.length).toBeGreaterThan(1);
    expect((await shippedByDeployments(deps, state, merged, { environment: 'mr-env' })).map((mr) => mr.id)).toEqual(merged.map((mr) => mr.id));
    // mr-env has four successful deployments; its first one (from the root) already shipped every row.
    expect(calls).toHaveLength(1);
    // What is between two full shas never changes: the next request reads that range from memory.
    expect((await shippedByDeployments(deps, state, merged, { environment: 'mr-env' })).map((mr) => mr.id)).toEqual(merged.map((mr) => mr.id));
    expect(calls).toHaveLength(1);
  });
});

describe('environments', () => {
  it('creates, gets with last_deployment, updates external_url, stops and deletes only when stopped', async () => {
    const created = await server.call('POST', `${base()}/environments`, { name: 'review/app', external_url: 'https://review.example.com' }, dev.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'review/app', slug: expect.stringMatching(/^review-app-[a-z0-9]{6}$/), external_url: 'https://review.example.com', state: 'available', project: { id: project.id } });
    const id = created.body.id;
    expect(await server.call('POST', `${base()}/environments`, { name: 'review/app' }, dev.token)).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    expect(await server.call('POST', `${base()}/environments`, { name: '/bad' }, dev.token)).toMatchObject({ status: 400, body: { message: { name: [expect.stringContaining("cannot start or end with '/'")] } } });
    expect(await server.call('POST', `${base()}/environments`, { name: 'x', slug: 'y' }, dev.token)).toMatchObject({ status: 400, body: { error: 'slug is automatically generated and cannot be changed' } });
    expect(await server.call('POST', `${base()}/environments`, { name: 'x', external_url: 'ftp://x' }, dev.token)).toMatchObject({ status: 400, body: { message: { external_url: ['is blocked: Only allowed schemes are http, https'] } } });
    expect(await server.call('POST', `${base()}/environments`, { name: 'x' }, reporter.token)).toMatchObject({ status: 403 });

    const updated = await server.call('PUT', `${base()}/environments/${id}`, { external_url: 'https://new.example.com' }, dev.token);
    expect(updated).toMatchObject({ status: 200, body: { external_url: 'https://new.example.com', slug: created.body.slug } });

    const production = (await server.call('GET', `${base()}/environments?name=production`, undefined, reporter.token)).body[0];
    const got = await server.call('GET', `${base()}/environments/${production.id}`, undefined, reporter.token);
    expect(got.body).toEqual({ id: production.id, name: 'production', slug: 'production', external_url: null, last_deployment: null, state: 'available' });
    const staging = (await server.call('GET', `${base()}/environments?search=stag`, undefined, reporter.token)).body;
    expect(staging.map((environment: { name: string }) => environment.name)).toEqual(['staging']);
    const withLast = await server.call('GET', `${base()}/environments/${staging[0].id}`, undefined, reporter.token);
    expect(withLast.body.last_deployment).toMatchObject({ status: 'success', deployable: null });
    expect(withLast.body.last_deployment.environment).toBeUndefined();
    expect(await server.call('GET', `${base()}/environments?name=a&search=b`, undefined, reporter.token)).toMatchObject({ status: 400, body: { error: 'name, search cannot be used together' } });

    expect(await server.call('DELETE', `${base()}/environments/${id}`, undefined, dev.token)).toMatchObject({ status: 403 });
    const stopped = await server.call('POST', `${base()}/environments/${id}/stop`, {}, dev.token);
    expect(stopped).toMatchObject({ status: 200, body: { state: 'stopped' } });
    expect((await server.call('GET', `${base()}/environments?states=stopped`, undefined, reporter.token)).body.map((environment: { id: number }) => environment.id)).toEqual([id]);
    expect(await server.call('DELETE', `${base()}/environments/${id}`, undefined, dev.token)).toMatchObject({ status: 204 });
    expect(await server.call('GET', `${base()}/environments/${id}`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    const types = server.events.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['EnvironmentCreated', 'EnvironmentUpdated', 'EnvironmentStopped', 'EnvironmentDeleted', 'DeploymentCreated', 'DeploymentStatusChanged']));
  });
});
