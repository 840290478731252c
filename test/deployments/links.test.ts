/**
 * A deployment's `links` (what `Deployments::LinkMergeRequestsService` linked) over random histories of deployments
 * created in any status, status changes in any order (success → failed → success, a lower id succeeding after a
 * higher one) and environment deletions: they are what a model of the platform's rows holds (each transition to
 * success adds the range from the environment's latest successful deployment with a lower id *at that moment*,
 * `ON CONFLICT DO NOTHING`), and the evolve computes them from the state at fold time, so the live state, a replay
 * of the log on a plain state, one immer batch of the whole log, and a replay from a snapshot taken at any position
 * must all hold the same slice.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  decodeState,
  encodeState,
  findDeployment,
  findEnvironmentByName,
  foldImmutable,
  foldMutable,
  forgefold,
  type DomainEvent,
  type RequestedDeploymentStatus,
  type State,
} from '@forgefold/core';
import { as, makeApp, system, userCommand } from '../core/fixtures.js';

const ENVIRONMENTS = ['production', 'staging'];
const SHAS = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(40));
const STATUSES: RequestedDeploymentStatus[] = ['running', 'success', 'failed', 'canceled'];

// Mostly one environment, and status changes among its latest deployments, mostly to success and back, so that a
// deployment often succeeds again after the successful ones below it changed.
const environment = fc.constantFrom(0, 0, 0, 1);
const status = fc.constantFrom<RequestedDeploymentStatus>('success', 'success', 'failed', 'failed', ...STATUSES);
const step = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('create' as const), environment, sha: fc.nat(SHAS.length - 1), status }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('status' as const), latest: fc.nat(3), status }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('deleteEnvironment' as const), environment: fc.constant(1) }), weight: 1 },
);

/** A deployment as the platform's rows have it: its status and the start of every range linked to it. */
interface Row {
  readonly id: number;
  readonly environment_id: number;
  readonly sha: string;
  status: string;
  links: (string | null)[] | null;
}

/** `after_transition any => :success` → `LinkMergeRequestWorker`: `previous_deployment` now, its rows added. */
const succeed = (rows: Map<number, Row>, row: Row): void => {
  let previous: Row | undefined;
  for (const other of rows.values()) {
    if (other.environment_id === row.environment_id && other.status === 'success' && other.id < row.id && (!previous || other.id > previous.id)) previous = other;
  }
  const from = previous?.sha ?? null;
  row.links ??= [];
  if (!row.links.includes(from)) row.links.push(from);
  row.status = 'success';
};

describe("a deployment's links", () => {
  it('are the ranges the platform linked on each success, and replay, batch and snapshot folds give the live state', async () => {
    let relinked = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), async (steps, cut) => {
        const { app, store, ok, run, advance } = await makeApp();
        await ok(system, userCommand('owner'));
        const created = await ok(as(1), { type: 'CreateProject', name: 'app', path: 'app' });
        const projectId = (created.events.find((event) => event.type === 'ProjectCreated')!.data as { id: number }).id;
        const state = () => app.state as State;
        const rows = new Map<number, Row>();
        for (const s of steps) {
          advance(1000);
          if (s.kind === 'create') {
            const before = state().deployments.sequences.deployment;
            const result = await run(as(1), {
              type: 'CreateDeployment',
              project_id: projectId,
              environment: ENVIRONMENTS[s.environment]!,
              sha: SHAS[s.sha]!,
              ref: 'main',
              tag: false,
              status: s.status,
              sha_exists: true,
              ref_exists: true,
            });
            expect(E.isRight(result)).toBe(true);
            const id = state().deployments.sequences.deployment;
            if (id === before) continue; // the environment's last success, returned as it is
            const row: Row = { id, environment_id: findEnvironmentByName(state().deployments, projectId, ENVIRONMENTS[s.environment]!)!.id, sha: SHAS[s.sha]!, status: 'created', links: null };
            rows.set(id, row);
            if (s.status === 'success') succeed(rows, row);
            else row.status = s.status;
          } else if (s.kind === 'status') {
            const ids = [...rows.keys()];
            if (ids.length === 0) continue;
            const row = rows.get(ids[Math.max(0, ids.length - 1 - s.latest)]!)!;
            const result = await run(as(1), { type: 'UpdateDeploymentStatus', project_id: projectId, deployment_id: row.id, status: s.status });
            if (E.isLeft(result)) continue;
            if (s.status !== 'success') row.status = s.status;
            else {
              const linked = row.links?.length ?? 0;
              succeed(rows, row);
              if (linked > 0 && row.links!.length > linked) relinked += 1;
            }
          } else {
            const environment = findEnvironmentByName(state().deployments, projectId, ENVIRONMENTS[s.environment]!);
            if (!environment) continue;
            await ok(as(1), { type: 'StopEnvironment', project_id: projectId, environment_id: environment.id });
            await ok(as(1), { type: 'DeleteEnvironment', project_id: projectId, environment_id: environment.id });
            for (const row of [...rows.values()]) if (row.environment_id === environment.id) rows.delete(row.id);
          }
        }
        // The model's rows.
        for (const row of rows.values()) {
          const deployment = findDeployment(state().deployments, projectId, row.id)!;
          expect({ id: row.id, status: deployment.status, links: deployment.links?.previous_shas ?? null }).toEqual({ id: row.id, status: row.status, links: row.links });
        }
        // Replays.
        const events = (await store.readAll(0, 1_000_000)).map((e) => ({ type: e.type, data: e.data }) as DomainEvent);
        const live = JSON.stringify(state().deployments);
        expect(JSON.stringify(foldMutable(forgefold.decider, forgefold.decider.initialState(), events).deployments)).toBe(live);
        expect(JSON.stringify(foldImmutable(forgefold.decider, forgefold.decider.initialState(), events).deployments)).toBe(live);
        const at = Math.floor(cut * events.length);
        const snapshot = decodeState(Buffer.concat([...encodeState(foldMutable(forgefold.decider, forgefold.decider.initialState(), events.slice(0, at)))])) as State;
        expect(JSON.stringify(foldMutable(forgefold.decider, snapshot, events.slice(at)).deployments)).toBe(live);
      }),
      { numRuns: 100 },
    );
    // The histories did succeed again after a success with another previous deployment (what a record of the first
    // success alone got wrong).
    expect(relinked).toBeGreaterThan(10);
  });
});

