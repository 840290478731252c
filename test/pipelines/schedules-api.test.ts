/**
 * Pipeline schedules and pipelines over HTTP, raw (exact statuses and bodies; reference §1), on the server
 * `forgefold serve` runs, with its clock and scheduler driven by the test.
 */
import type { RecordedEvent } from '@forgefold/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { api, member } from './support.js';

let server: TestServer;
let project: { id: number; path_with_namespace: string };
let sha: string;
let dev: { id: number; token: string };
let maint: { id: number; token: string };
let reporter: { id: number; token: string };
let guest: { id: number; token: string };
let stranger: { id: number; token: string };
let clock = Date.parse('2026-03-02T10:00:30.000Z');
const events: RecordedEvent[] = [];

const S = () => `/projects/${project.id}/pipeline_schedules`;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-02T10:00:30.000Z' });
  server.app.onCommitted((committed) => events.push(...committed));
  project = (await api(server, 'POST', '/projects', { name: 'Sched', initialize_with_readme: true })).body;
  sha = (await api(server, 'GET', `/projects/${project.id}/repository/branches/main`)).body.commit.id;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  maint = await member(server, 'maint', { id: project.id, level: 40 });
  reporter = await member(server, 'rep', { id: project.id, level: 20 });
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  stranger = await member(server, 'stranger');
  // `main` protected for Maintainers; `feature` open to Developers.
  await api(server, 'POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' });
  await api(server, 'POST', `/projects/${project.id}/protected_branches`, { name: 'main' });
});
afterAll(async () => server?.close());

describe('pipeline schedules', () => {
  let id: number;

  it('creates a schedule: 201 with next_run_at rounded to the worker cron, the caller as owner, no pipeline yet', async () => {
    const created = await api(server, 'POST', S(), { description: 'Nightly', ref: 'feature', cron: ' */5 * * * * ', cron_timezone: 'Pacific Time (US & Canada)' }, dev.token);
    expect(created.status).toBe(201);
    id = created.body.id;
    expect(created.body).toEqual({
      id,
      description: 'Nightly',
      ref: 'feature',
      cron: '*/5 * * * *',
      cron_timezone: 'Pacific Time (US & Canada)',
      // 10:00:30 → ideal 10:05 → the worker's next tick after it: 10:13.
      next_run_at: '2026-03-02T10:13:00.000Z',
      active: true,
      created_at: '2026-03-02T10:00:30.000Z',
      updated_at: '2026-03-02T10:00:30.000Z',
      owner: expect.objectContaining({ id: dev.id, username: 'dev', state: 'active' }),
      last_pipeline: null,
      variables: [],
    });
  });

  it('answers the platform errors: 400 params, 400 validation, 401, 403, 404', async () => {
    expect((await api(server, 'POST', S(), { description: 'x', ref: '', cron: '* * * * *' }, dev.token)).body).toEqual({ error: 'ref is empty' });
    expect((await api(server, 'POST', S(), { ref: 'main', cron: '* * * * *' }, dev.token)).body).toEqual({ error: 'description is missing' });
    const invalid = await api(server, 'POST', S(), { description: 'x', ref: 'main', cron: 'invalid-cron', cron_timezone: 'Mars/Olympus' }, dev.token);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ message: { cron: [' is invalid syntax'], cron_timezone: ['syntax is invalid'] } });
    expect((await api(server, 'GET', `${S()}?scope=all`, undefined, dev.token)).body).toEqual({ error: 'scope does not have a valid value' });
    expect((await api(server, 'GET', S(), undefined, null)).status).toBe(401);
    expect(await api(server, 'POST', S(), { description: 'x', ref: 'main', cron: '* * * * *' }, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'GET', `${S()}/${id}`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Not Found' } });
    expect(await api(server, 'GET', `${S()}/999`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Not Found' } });
    expect(await api(server, 'GET', S(), undefined, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await api(server, 'GET', `${S()}/abc`, undefined, dev.token)).body).toEqual({ error: 'pipeline_schedule_id is invalid' });
    expect(await api(server, 'PUT', `${S()}/${id}`, { ref: '' }, dev.token)).toMatchObject({ status: 400, body: { message: { ref: ["can't be blank"] } } });
  });

  it('updates (rescheduled), lists by scope and id descending', async () => {
    const other = await api(server, 'POST', S(), { description: 'Off', ref: 'main', cron: '0 1 * * *', active: false }, maint.token);
    expect(other.body.next_run_at).toBe('2026-03-03T01:03:00.000Z');
    const updated = await api(server, 'PUT', `${S()}/${id}`, { cron: '0 4 * * *', cron_timezone: 'Europe/Berlin' }, dev.token);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ cron: '0 4 * * *', cron_timezone: 'Europe/Berlin', next_run_at: '2026-03-03T03:03:00.000Z' });
    const all = await api(server, 'GET', S(), undefined, reporter.token);
    expect(all.body.map((s: { id: number }) => s.id)).toEqual([other.body.id, id]);
    expect(all.body[0]).not.toHaveProperty('variables');
    expect(all.body[0]).not.toHaveProperty('last_pipeline');
    expect((await api(server, 'GET', `${S()}?scope=active`, undefined, reporter.token)).body.map((s: { id: number }) => s.id)).toEqual([id]);
    expect((await api(server, 'GET', `${S()}?scope=inactive`, undefined, reporter.token)).body.map((s: { id: number }) => s.id)).toEqual([other.body.id]);
    // 14.7: a Developer who does not own it may not update or delete a Maintainer's schedule.
    expect((await api(server, 'PUT', `${S()}/${other.body.id}`, { description: 'mine' }, dev.token)).status).toBe(403);
    expect((await api(server, 'DELETE', `${S()}/${other.body.id}`, undefined, dev.token)).status).toBe(403);
    expect(await api(server, 'DELETE', `${S()}/${other.body.id}`, undefined, maint.token)).toMatchObject({ status: 204, text: '' });
  });

  it('variables: 201, 200, 400 validation, 404, DELETE 202 with the variable', async () => {
    const V = `${S()}/${id}/variables`;
    expect(await api(server, 'POST', V, { key: 'DEPLOY', value: 'yes' }, dev.token)).toMatchObject({ status: 201, body: { variable_type: 'env_var', key: 'DEPLOY', value: 'yes' } });
    expect(await api(server, 'POST', V, { key: 'DEPLOY', value: 'again' }, dev.token)).toMatchObject({ status: 400, body: { message: { key: ['has already been taken'] } } });
    expect(await api(server, 'POST', V, { key: 'bad key', value: 'x' }, dev.token)).toMatchObject({ status: 400, body: { message: { key: ["can contain only letters, digits and '_'."] } } });
    expect((await api(server, 'POST', V, { key: 'K', value: 'x', variable_type: 'yaml' }, dev.token)).body).toEqual({ error: 'variable_type does not have a valid value' });
    expect(await api(server, 'PUT', `${V}/DEPLOY`, { value: 'no', variable_type: 'file' }, dev.token)).toMatchObject({ status: 200, body: { variable_type: 'file', key: 'DEPLOY', value: 'no' } });
    expect(await api(server, 'PUT', `${V}/NOPE`, { value: 'no' }, dev.token)).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Variable Not Found' } });
    await api(server, 'POST', V, { key: 'TEMP', value: 't' }, dev.token);
    expect(await api(server, 'DELETE', `${V}/TEMP`, undefined, dev.token)).toMatchObject({ status: 202, body: { variable_type: 'env_var', key: 'TEMP', value: 't' } });
    expect((await api(server, 'GET', `${S()}/${id}`, undefined, dev.token)).body.variables).toEqual([{ variable_type: 'file', key: 'DEPLOY', value: 'no' }]);
  });

  it('play: 201 {"message":"201 Created"}, a pipeline for the player; Reporters 403; a Developer 403 on a protected ref', async () => {
    const played = await api(server, 'POST', `${S()}/${id}/play`, undefined, dev.token);
    expect(played).toMatchObject({ status: 201, body: { message: '201 Created' } });
    const detail = (await api(server, 'GET', `${S()}/${id}`, undefined, dev.token)).body;
    expect(detail.last_pipeline).toMatchObject({ sha, ref: 'feature', status: 'created', source: 'schedule' });
    expect(detail.next_run_at).toBe('2026-03-03T03:03:00.000Z');
    expect((await api(server, 'POST', `${S()}/${id}/play`, undefined, reporter.token)).status).toBe(403);
    const onMain = await api(server, 'POST', S(), { description: 'Main', ref: 'main', cron: '0 1 * * *' }, dev.token);
    expect(await api(server, 'POST', `${S()}/${onMain.body.id}/play`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await api(server, 'POST', `${S()}/${onMain.body.id}/play`, undefined, maint.token)).status).toBe(201);
  });

  it('take_ownership: 201 with the caller as owner (also when already the owner)', async () => {
    const taken = await api(server, 'POST', `${S()}/${id}/take_ownership`, undefined, maint.token);
    expect(taken.status).toBe(201);
    expect(taken.body.owner.id).toBe(maint.id);
    expect((await api(server, 'POST', `${S()}/${id}/take_ownership`, undefined, maint.token)).status).toBe(201);
    // The Developer no longer owns it.
    expect((await api(server, 'PUT', `${S()}/${id}`, { description: 'x' }, dev.token)).status).toBe(403);
  });

  it('fires on time by itself as the clock advances, once after downtime, and skips a blocked owner', async () => {
    const created = await api(server, 'POST', S(), { description: 'Every 10', ref: 'feature', cron: '*/10 * * * *' }, dev.token);
    await api(server, 'POST', `${S()}/${created.body.id}/variables`, { key: 'FROM', value: 'schedule' }, dev.token);
    const next = Date.parse(created.body.next_run_at);
    const runs = async () => ((await api(server, 'GET', `/projects/${project.id}/pipelines?source=schedule&username=dev&per_page=100`, undefined, dev.token)).body as { id: number }[]).length;
    const before = await runs();
    const advanceTo = (at: number) => {
      server.advance(at - clock);
      clock = at;
    };
    // One minute short: nothing runs.
    advanceTo(next - 60_000);
    expect(await runs()).toBe(before);
    advanceTo(next);
    expect(await runs()).toBe(before + 1);
    const after = (await api(server, 'GET', `${S()}/${created.body.id}`, undefined, dev.token)).body;
    expect(after.last_pipeline).toMatchObject({ ref: 'feature', source: 'schedule', sha, status: 'created' });
    expect(Date.parse(after.next_run_at)).toBe(next + 10 * 60_000);
    const pipeline = (await api(server, 'GET', `/projects/${project.id}/pipelines/${after.last_pipeline.id}`, undefined, dev.token)).body;
    expect(pipeline).toMatchObject({ source: 'schedule', user: { id: dev.id }, tag: false, before_sha: '0'.repeat(40) });
    await server.processes.settled();
    const ran = events.find((event) => event.type === 'ScheduleRan' && (event.data as { id: number }).id === created.body.id)!;
    expect(ran.metadata).toMatchObject({ actorId: null, origin: 'system' });
    expect(ran.data).toMatchObject({ owner_id: dev.id, pipeline_id: after.last_pipeline.id });
    // Six hours of downtime (the scheduler does not tick), then one tick: one run, not 36.
    server.advance(6 * 3_600_000, { tick: false });
    clock += 6 * 3_600_000;
    server.processes.tick(60_000);
    expect(await runs()).toBe(before + 2);
    // A blocked owner: the run is skipped and recorded, and the schedule moves on.
    expect((await api(server, 'POST', `/users/${dev.id}/block`)).status).toBe(201);
    const due = Date.parse((await api(server, 'GET', `${S()}/${created.body.id}`)).body.next_run_at);
    advanceTo(due + 60_000);
    await server.processes.settled();
    const skipped = events.filter((event) => event.type === 'ScheduleRunSkipped' && (event.data as { id: number }).id === created.body.id);
    expect(skipped.map((event) => event.data)).toEqual([expect.objectContaining({ trigger: 'schedule', reason: 'owner_blocked', user_id: dev.id })]);
    expect(Date.parse((await api(server, 'GET', `${S()}/${created.body.id}`)).body.next_run_at)).toBeGreaterThan(due);
    await api(server, 'POST', `/users/${dev.id}/unblock`);
  });
});
