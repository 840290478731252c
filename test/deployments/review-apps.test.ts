/**
 * `DELETE /projects/:id/environments/review_apps` (lib/api/environments.rb and
 * `Environments::ScheduleToDeleteReviewAppsService`, 14.7): stopped environments of the `review` folder created before
 * `before` (30 days ago by default), oldest first, at most `limit`; a dry run by default; a real run sets their
 * `auto_delete_at` a week on, and the clean-up process (`Environments::AutoDeleteCronWorker`) deletes them then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { api, member } from '../pipelines/support.js';

const DAY = 86_400_000;
const NOTHING = 'Failed to authorize deletions for some or all of the environments. Ask someone with more permissions to delete the environments.';

let server: TestServer;
let project: { id: number };
let developer: { id: number; token: string };
let reporter: { id: number; token: string };
let guest: { id: number; token: string };
const env: Record<string, { id: number; name: string; slug: string; external_url: string | null }> = {};

const P = () => `/projects/${project.id}/environments`;
const environment = async (name: string, stop: boolean, external_url?: string) => {
  const made = (await api(server, 'POST', P(), { name, ...(external_url ? { external_url } : {}) }, developer.token)).body;
  if (stop) await api(server, 'POST', `${P()}/${made.id}/stop`, undefined, developer.token);
  env[name] = { id: made.id, name: made.name, slug: made.slug, external_url: made.external_url };
};
const reviewApps = (query: string, token: string | null = developer.token) => api(server, 'DELETE', `${P()}/review_apps${query}`, undefined, token);
const basic = (...names: string[]) => names.map((name) => env[name]);

beforeAll(async () => {
  server = await startServer({ start: '2026-01-01T10:00:00.000Z' });
  project = (await api(server, 'POST', '/projects', { name: 'Reviews', initialize_with_readme: true })).body;
  developer = await member(server, 'developer', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  // 2026-01-01: the old ones (a minute apart: the older first in the answer, whatever their ids).
  await environment('review/second', true);
  server.advance(-60_000, { tick: false });
  await environment('review/first', true, 'https://first.example.com');
  server.advance(120_000, { tick: false });
  await environment('review/active', false);
  await environment('production', true);
  await environment('staging/old', true);
  await environment('review', true);
  // 31 days on: a new stopped review app.
  server.advance(31 * DAY, { tick: false });
  await environment('review/new', true);
});
afterAll(async () => server?.close());

describe('DELETE /projects/:id/environments/review_apps', () => {
  it('a dry run by default: 200 with the old stopped review apps, oldest first; nothing scheduled', async () => {
    const dry = await reviewApps('');
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ scheduled_entries: basic('review/first', 'review/second'), unprocessable_entries: [] });
    expect(await reviewApps('?dry_run=true')).toMatchObject({ status: 200, body: { scheduled_entries: basic('review/first', 'review/second') } });
    expect(await reviewApps('?limit=1')).toMatchObject({ status: 200, body: { scheduled_entries: basic('review/first'), unprocessable_entries: [] } });
    // `before`: created before the given time (the new one too when it is now).
    expect(await reviewApps(`?before=${encodeURIComponent('2026-01-01T09:59:30Z')}`)).toMatchObject({ status: 200, body: { scheduled_entries: basic('review/first') } });
    expect(await reviewApps(`?before=${encodeURIComponent('2026-03-01T00:00:00Z')}`)).toMatchObject({ status: 200, body: { scheduled_entries: basic('review/first', 'review/second', 'review/new') } });
  });

  it("the entries are 14.7's Entities::Environment (with project and state, as the list rows), not EnvironmentBasic", async () => {
    // 14.x's lib/api/environments.rb: `Entities::Environment.represent(result.scheduled_entries)`; EnvironmentBasic
    // came with 15.x's API documentation rework (and its `basic_environments` schema check in the request spec).
    const rows = (await api(server, 'GET', P(), undefined, developer.token)).body as { name: string }[];
    const row = (name: string) => rows.find((each) => each.name === name);
    const dry = await reviewApps('');
    expect(dry.status).toBe(200);
    expect(dry.text).toBe(JSON.stringify({ scheduled_entries: [row('review/first'), row('review/second')], unprocessable_entries: [] }));
    expect(dry.body.scheduled_entries[0]).toMatchObject({ ...env['review/first'], project: { id: project.id }, state: 'stopped' });
  });

  it('refuses bad parameters (400), strangers (404), the anonymous (401), Guests (403, read_environment) and Reporters (401, the service)', async () => {
    expect(await reviewApps('?limit=0')).toMatchObject({ status: 400, body: { error: 'limit does not have a valid value' } });
    expect(await reviewApps('?limit=1001')).toMatchObject({ status: 400, body: { error: 'limit does not have a valid value' } });
    expect(await reviewApps('?limit=1000')).toMatchObject({ status: 200 });
    expect(await reviewApps('?before=soon')).toMatchObject({ status: 400, body: { error: 'before is invalid' } });
    expect(await reviewApps('?dry_run=maybe')).toMatchObject({ status: 400, body: { error: 'dry_run is invalid' } });
    const stranger = await member(server, 'stranger');
    expect(await reviewApps('', stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await reviewApps('', null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await reviewApps('', guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const refused = await reviewApps('?dry_run=false', reporter.token);
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(
      JSON.stringify({ message: { scheduled_entries: [], unprocessable_entries: [], message: 'You do not have permission to destroy environments in this project' } }),
    );
  });

  it('a real run schedules them (200), a second finds none (400 with the lists under message); the process deletes them a week on', async () => {
    const run = await reviewApps('?dry_run=false');
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ scheduled_entries: basic('review/first', 'review/second'), unprocessable_entries: [] });
    const again = await reviewApps('?dry_run=false');
    expect(again.status).toBe(400);
    expect(again.text).toBe(JSON.stringify({ message: { scheduled_entries: [], unprocessable_entries: [], message: NOTHING } }));
    // A dry run no longer lists them (`not_scheduled_for_deletion`).
    expect(await reviewApps('')).toMatchObject({ status: 400, body: { message: { message: NOTHING } } });
    // Scheduled, not deleted: both are still there until their `auto_delete_at`.
    server.advance(7 * DAY - 60_000);
    expect((await api(server, 'GET', `${P()}/${env['review/first']!.id}`, undefined, developer.token)).status).toBe(200);
    // One of them starts again (a successful deployment): `auto_deletable` takes stopped environments only.
    const sha = (await api(server, 'GET', `/projects/${project.id}/repository/branches/main`)).body.commit.id;
    expect((await api(server, 'POST', `/projects/${project.id}/deployments`, { environment: 'review/second', sha, ref: 'main', tag: false, status: 'success' }, developer.token)).status).toBe(201);
    server.advance(120_000);
    expect(await api(server, 'GET', `${P()}/${env['review/first']!.id}`, undefined, developer.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    const left = (await api(server, 'GET', P(), undefined, developer.token)).body.map((row: { name: string }) => row.name);
    expect(left).toEqual(['review/second', 'review/active', 'production', 'staging/old', 'review', 'review/new']);
    // Stopped again later, it is deleted at the next run (its `auto_delete_at` stayed).
    await api(server, 'POST', `${P()}/${env['review/second']!.id}/stop`, undefined, developer.token);
    server.advance(60_000);
    expect((await api(server, 'GET', `${P()}/${env['review/second']!.id}`, undefined, developer.token)).status).toBe(404);
  });
});
