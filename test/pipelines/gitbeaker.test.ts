/** Pipelines and pipeline schedules through a real GitLab client, unmodified: Pipelines, PipelineSchedules, PipelineScheduleVariables. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let api: InstanceType<typeof Gitlab>;

beforeAll(async () => {
  server = await startServer({ start: '2026-04-01T08:00:30.000Z' });
  api = new Gitlab({ host: server.url, token: server.rootToken });
});
afterAll(async () => server?.close());

describe('@gitbeaker/rest on pipelines and schedules', () => {
  it('schedules, variables, play, ownership and pipelines end to end; a schedule fires as the clock moves', async () => {
    const project = await api.Projects.create({ name: 'Client Pipes', initializeWithReadme: true });
    const id = project.id as number;

    const schedule = await api.PipelineSchedules.create(id, 'Hourly', 'main', '0 * * * *', { cronTimezone: 'Europe/Berlin' });
    expect(schedule).toMatchObject({ description: 'Hourly', ref: 'main', cron: '0 * * * *', cron_timezone: 'Europe/Berlin', active: true, next_run_at: '2026-04-01T09:03:00.000Z', last_pipeline: null });
    const scheduleId = schedule.id as number;
    const edited = await api.PipelineSchedules.edit(id, scheduleId, { description: 'Hourly build', active: true });
    expect(edited.description).toBe('Hourly build');
    expect((await api.PipelineSchedules.all(id, { scope: 'active' })).map((s) => s.id)).toEqual([scheduleId]);
    expect(await api.PipelineSchedules.all(id, { scope: 'inactive' })).toEqual([]);

    expect(await api.PipelineScheduleVariables.create(id, scheduleId, 'TARGET', 'staging')).toEqual({ variable_type: 'env_var', key: 'TARGET', value: 'staging' });
    expect(await api.PipelineScheduleVariables.edit(id, scheduleId, 'TARGET', 'production', { variableType: 'file' })).toEqual({ variable_type: 'file', key: 'TARGET', value: 'production' });
    await api.PipelineScheduleVariables.create(id, scheduleId, 'TEMP', 'x');
    await api.PipelineScheduleVariables.remove(id, scheduleId, 'TEMP');
    expect((await api.PipelineSchedules.show(id, scheduleId)).variables).toEqual([{ variable_type: 'file', key: 'TARGET', value: 'production' }]);

    expect(await api.PipelineSchedules.run(id, scheduleId)).toEqual({ message: '201 Created' });
    const played = await api.PipelineSchedules.show(id, scheduleId);
    expect(played.last_pipeline).toMatchObject({ ref: 'main', status: 'created', source: 'schedule' });
    expect((await api.PipelineSchedules.takeOwnership(id, scheduleId)).owner).toMatchObject({ username: 'root' });

    // The clock reaches next_run_at: the scheduler runs the schedule by itself.
    server.advance(Date.parse('2026-04-01T09:03:00.000Z') - Date.parse('2026-04-01T08:00:30.000Z'));
    // The run it started is written before the next request (gitbeaker's calls do not wait for it as `request` does).
    await server.processes.settled();
    const pipelines = await api.Pipelines.all(id, { source: 'schedule' } as Record<string, unknown>);
    expect(pipelines).toHaveLength(2);
    expect((await api.PipelineSchedules.show(id, scheduleId)).next_run_at).toBe('2026-04-01T10:03:00.000Z');

    const pipeline = await api.Pipelines.create(id, 'main', { variables: [{ key: 'MANUAL', value: '1', variable_type: 'env_var' }] });
    expect(pipeline).toMatchObject({ ref: 'main', status: 'created', source: 'api', tag: false });
    const pipelineId = pipeline.id as number;
    expect((await api.Pipelines.show(id, pipelineId)).id).toBe(pipelineId);
    expect((await api.Pipelines.cancel(id, pipelineId)).status).toBe('canceled');
    expect((await api.Pipelines.retry(id, pipelineId)).status).toBe('pending');
    expect((await api.Pipelines.all(id)).map((p) => p.id)).toEqual([pipelineId, ...pipelines.map((p) => p.id)]);
    await api.Pipelines.remove(id, pipelineId);
    await expect(api.Pipelines.show(id, pipelineId)).rejects.toThrow();

    await api.PipelineSchedules.remove(id, scheduleId);
    expect(await api.PipelineSchedules.all(id)).toEqual([]);
  });
});
