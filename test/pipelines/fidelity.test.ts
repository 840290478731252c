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
