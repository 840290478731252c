/**
 * Fidelity with the platform's 14.7 pipelines API (issue 16's audit, branch `fid-cicd`): who reads pipelines.
 * ProjectPolicy enables `read_pipeline` (and `read_build`) for Guests while builds are public (`public_builds &
 * guest_access`), and public builds are the default (there is no setting of it here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { api, member } from './support.js';

let server: TestServer;
let project: { id: number };
let guest: { id: number; token: string };
let dev: { id: number; token: string };
let pipeline: { id: number };

beforeAll(async () => {
  server = await startServer({ start: '2026-03-02T10:00:30.000Z' });
  project = (await api(server, 'POST', '/projects', { name: 'Pipelines', initialize_with_readme: true })).body;
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  await api(server, 'POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' });
  pipeline = (await api(server, 'POST', `/projects/${project.id}/pipeline`, { ref: 'feature' }, dev.token)).body;
});
afterAll(async () => server?.close());

describe('pipelines read by a Guest of a private project (public_builds & guest_access)', () => {
  it('lists and gets pipelines: 200', async () => {
    const list = await api(server, 'GET', `/projects/${project.id}/pipelines`, undefined, guest.token);
    expect(list.status).toBe(200);
    expect(list.body.map((row: { id: number }) => row.id)).toEqual([pipeline.id]);
    const one = await api(server, 'GET', `/projects/${project.id}/pipelines/${pipeline.id}`, undefined, guest.token);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: pipeline.id, ref: 'feature', detailed_status: { has_details: true } });
  });

  it('still may not cancel, retry or create (Developer abilities): 403', async () => {
    expect(await api(server, 'POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`, undefined, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'POST', `/projects/${project.id}/pipeline`, { ref: 'feature' }, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('GET /pipelines/latest (lib/api/ci/pipelines.rb: `user_project.latest_pipeline(params[:ref])`, then `authorize! :read_pipeline`)', () => {
  it("answers the newest pipeline of the ref at the ref's head commit (the default branch when no ref is given)", async () => {
    const P = `/projects/${project.id}`;
    const older = (await api(server, 'POST', `${P}/pipeline`, { ref: 'main' })).body;
    const newer = (await api(server, 'POST', `${P}/pipeline`, { ref: 'main' })).body;
    expect(older.id).toBeLessThan(newer.id);
    const latest = await api(server, 'GET', `${P}/pipelines/latest`, undefined, guest.token);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ id: newer.id, ref: 'main', status: 'created', before_sha: '0000000000000000000000000000000000000000', detailed_status: { text: 'created' } });
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=feature`, undefined, guest.token)).toMatchObject({ status: 200, body: { id: pipeline.id, ref: 'feature' } });
  });

  it("a ref with no pipeline at its head commit is 403 (authorize! on nil), as is a commit the ref has moved past", async () => {
    const P = `/projects/${project.id}`;
    await api(server, 'POST', `${P}/repository/branches`, { branch: 'quiet', ref: 'main' });
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=quiet`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=nope`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // A new commit on `feature`: its pipeline was for the old head.
    await api(server, 'POST', `${P}/repository/commits`, { branch: 'feature', commit_message: 'next', actions: [{ action: 'create', file_path: 'next.txt', content: 'x' }] });
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=feature`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('reads a branch from the state and any other revision from git: an annotated tag, a name that is a tag and a branch', async () => {
    const P = `/projects/${project.id}`;
    expect((await api(server, 'POST', `${P}/repository/tags`, { tag_name: 'v-latest', ref: 'main', message: 'annotated' })).status).toBe(201);
    const tagged = (await api(server, 'POST', `${P}/pipeline`, { ref: 'v-latest' }, dev.token)).body;
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=v-latest`, undefined, dev.token)).toMatchObject({ status: 200, body: { id: tagged.id, ref: 'v-latest', tag: true } });
    // A branch of the tag's name one commit ahead: git's revision lookup takes the tag first, whose commit has the pipeline.
    await api(server, 'POST', `${P}/repository/branches`, { branch: 'v-latest', ref: 'main' });
    await api(server, 'POST', `${P}/repository/commits`, { branch: 'v-latest', commit_message: 'ahead', actions: [{ action: 'create', file_path: 'ahead.txt', content: 'x' }] });
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=v-latest`, undefined, dev.token)).toMatchObject({ status: 200, body: { id: tagged.id } });
  });

  it('asks git for a ref that is also a full ref name: a branch `refs/tags/v-full` and a tag `v-full` elsewhere', async () => {
    const P = `/projects/${project.id}`;
    expect((await api(server, 'POST', `${P}/repository/branches`, { branch: 'refs/tags/v-full', ref: 'main' })).status).toBe(201);
    await api(server, 'POST', `${P}/repository/commits`, { branch: 'refs/tags/v-full', commit_message: 'ahead', actions: [{ action: 'create', file_path: 'full.txt', content: 'x' }] });
    expect((await api(server, 'POST', `${P}/repository/tags`, { tag_name: 'v-full', ref: 'main' })).status).toBe(201);
    // The pipeline is at the branch's commit; git reads `refs/tags/v-full` as the tag (the full name comes first).
    expect((await api(server, 'POST', `${P}/pipeline`, { ref: 'refs/tags/v-full' }, dev.token)).status).toBe(201);
    expect(await api(server, 'GET', `${P}/pipelines/latest?ref=refs/tags/v-full`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('is read as the pipelines are: 404 for a private project to a stranger, 200 anonymously on a public one', async () => {
    const stranger = await member(server, 'latest-stranger');
    expect(await api(server, 'GET', `/projects/${project.id}/pipelines/latest`, undefined, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const open = (await api(server, 'POST', '/projects', { name: 'Latest open', initialize_with_readme: true, visibility: 'public' })).body;
    const made = (await api(server, 'POST', `/projects/${open.id}/pipeline`, { ref: 'main' })).body;
    expect(await api(server, 'GET', `/projects/${open.id}/pipelines/latest`, undefined, null)).toMatchObject({ status: 200, body: { id: made.id } });
  });
});

describe("a pipeline's jobs, bridges and variables (lib/api/ci/pipelines.rb)", () => {
  it('jobs and bridges: an empty page (no job ever runs), 404 for an unknown pipeline, 400 for a scope that is no status', async () => {
    const P = `/projects/${project.id}/pipelines`;
    for (const kind of ['jobs', 'bridges']) {
      const page = await api(server, 'GET', `${P}/${pipeline.id}/${kind}?scope[]=failed&scope[]=success`, undefined, guest.token);
      expect(page).toMatchObject({ status: 200, body: [] });
      expect(page.headers.get('x-total')).toBe('0');
      expect(page.headers.get('x-page')).toBe('1');
      expect(await api(server, 'GET', `${P}/${pipeline.id}/${kind}?scope=running`, undefined, guest.token)).toMatchObject({ status: 200, body: [] });
      expect(await api(server, 'GET', `${P}/999/${kind}`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
      expect(await api(server, 'GET', `${P}/${pipeline.id}/${kind}?scope=bogus`, undefined, guest.token)).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    }
  });

  it('test_report: the empty report of a pipeline without jobs (TestReportEntity), 404 for an unknown pipeline', async () => {
    const P = `/projects/${project.id}/pipelines`;
    expect(await api(server, 'GET', `${P}/${pipeline.id}/test_report`, undefined, guest.token)).toMatchObject({
      status: 200,
      body: { total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, test_suites: [] },
    });
    expect(await api(server, 'GET', `${P}/999/test_report`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('test_report_summary: the empty summary of a pipeline without jobs (TestReportSummaryEntity), its keys in order; 404s; 400 for an id that is no integer', async () => {
    const P = `/projects/${project.id}/pipelines`;
    const summary = await api(server, 'GET', `${P}/${pipeline.id}/test_report_summary`, undefined, guest.token);
    expect(summary.status).toBe(200);
    expect(summary.text).toBe('{"total":{"time":0,"count":0,"success":0,"failed":0,"skipped":0,"error":0,"suite_error":null},"test_suites":[]}');
    expect(await api(server, 'GET', `${P}/999/test_report_summary`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(server, 'GET', `${P}/abc/test_report_summary`, undefined, guest.token)).toMatchObject({ status: 400, body: { error: 'pipeline_id is invalid' } });
    // The spec's unauthorized user: a stranger to the private project.
    const stranger = await member(server, 'summary-stranger');
    expect(await api(server, 'GET', `${P}/${pipeline.id}/test_report_summary`, undefined, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api(server, 'GET', `${P}/${pipeline.id}/test_report_summary`, undefined, null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it("variables: read by Maintainers and by the Developer the pipeline runs as (read_pipeline_variable); 403 for others", async () => {
    const P = `/projects/${project.id}`;
    const other = await member(server, 'other-dev', { id: project.id, level: 30 });
    const maintainer = await member(server, 'vars-maintainer', { id: project.id, level: 40 });
    const made = (await api(server, 'POST', `${P}/pipeline`, { ref: 'feature', variables: [{ key: 'DEPLOY', value: 'yes' }, { key: 'CONF', value: 'a=b', variable_type: 'file' }] }, dev.token)).body;
    const expected = [
      { variable_type: 'env_var', key: 'DEPLOY', value: 'yes' },
      { variable_type: 'file', key: 'CONF', value: 'a=b' },
    ];
    expect(await api(server, 'GET', `${P}/pipelines/${made.id}/variables`, undefined, dev.token)).toMatchObject({ status: 200, body: expected });
    expect(await api(server, 'GET', `${P}/pipelines/${made.id}/variables`, undefined, maintainer.token)).toMatchObject({ status: 200, body: expected });
    expect(await api(server, 'GET', `${P}/pipelines/${made.id}/variables`, undefined, other.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'GET', `${P}/pipelines/${made.id}/variables`, undefined, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'GET', `${P}/pipelines/999/variables`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});
