/**
 * Decider specs of the deployments module: environments (create, update, stop, delete), deployments (create with the
 * environment found or created, git facts, idempotent success; status updates through the machine).
 */
import { badRequest, forbidden, notFound, unauthorized, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const A = 'a'.repeat(40);
const LATER = '2026-01-02T00:00:00.000Z';

const root = userCreated(1, 'root', { admin: true });
const dev = userCreated(2, 'dev');
const rep = userCreated(3, 'rep');

const base: ForgefoldEvent[] = [root, dev, rep, projectCreated(1, 'app', 101, { kind: 'user' }), memberAdded(1, { project: 1 }, 2, 30), memberAdded(2, { project: 1 }, 3, 20)];

const production: ForgefoldEvent = { type: 'EnvironmentCreated', data: { project_id: 1, id: 1, name: 'production', slug: 'production', external_url: null, created_at: AT } };
/** A stopped environment created at `at`. */
const review = (id: number, name: string, at: string): ForgefoldEvent[] => [
  { type: 'EnvironmentCreated', data: { project_id: 1, id, name, slug: name.replace('/', '-'), external_url: null, created_at: at } },
  { type: 'EnvironmentStopped', data: { project_id: 1, id, at } },
];
const deployed = (id: number, status: 'running' | 'success' | 'failed' | 'canceled', extra: object = {}): ForgefoldEvent => ({
  type: 'DeploymentCreated',
  data: { project_id: 1, id, iid: id, environment_id: 1, ref: 'main', tag: false, sha: A, status, user_id: 2, created_at: AT, ...extra },
});
const create = (extra: object = {}) =>
  ({ type: 'CreateDeployment', project_id: 1, environment: 'production', sha: A, ref: 'main', tag: false, status: 'success', sha_exists: true, ref_exists: true, ...extra }) as const;

export const deploymentSpecs: Record<string, Spec> = {
  'an environment gets its slug': {
    given: base,
    as: 2,
    when: { type: 'CreateEnvironment', project_id: 1, name: 'review/feature-1', external_url: 'https://r.example.com' },
    then: [{ type: 'EnvironmentCreated', data: { project_id: 1, id: 1, name: 'review/feature-1', slug: 'review-feature-1-1q251u', external_url: 'https://r.example.com', created_at: AT } }],
  },
  'environment names are unique per project and follow the format': {
    given: [...base, production],
    as: 2,
    when: { type: 'CreateEnvironment', project_id: 1, name: 'production' },
    error: validation({ name: ['has already been taken'] }),
  },
  'reporters create no environment': { given: base, as: 3, when: { type: 'CreateEnvironment', project_id: 1, name: 'x' }, error: forbidden() },
  'external_url is updated; the slug stays': {
    given: [...base, production],
    as: 2,
    at: LATER,
    when: { type: 'UpdateEnvironment', project_id: 1, environment_id: 1, external_url: 'https://prod.example.com' },
    then: [{ type: 'EnvironmentUpdated', data: { project_id: 1, id: 1, external_url: 'https://prod.example.com', updated_at: LATER } }],
  },
  'an update to the same values writes nothing': {
    given: [...base, production],
    as: 2,
    at: LATER,
    when: { type: 'UpdateEnvironment', project_id: 1, environment_id: 1, name: 'production' },
    then: [],
  },
  'an unknown environment is "404 Not found"': {
    given: base,
    as: 2,
    when: { type: 'UpdateEnvironment', project_id: 1, environment_id: 9, external_url: null },
    error: notFound(undefined, '404 Not found'),
  },
  'an environment stops': {
    given: [...base, production],
    as: 2,
    when: { type: 'StopEnvironment', project_id: 1, environment_id: 1 },
    then: [{ type: 'EnvironmentStopped', data: { project_id: 1, id: 1, at: AT } }],
  },
  'a reporter stopping changes nothing (StopService returns quietly)': { given: [...base, production], as: 3, when: { type: 'StopEnvironment', project_id: 1, environment_id: 1 }, then: [] },
  'an available environment is not deleted': { given: [...base, production], as: 2, when: { type: 'DeleteEnvironment', project_id: 1, environment_id: 1 }, error: forbidden() },
  'a stopped environment is deleted': {
    given: [...base, production, { type: 'EnvironmentStopped', data: { project_id: 1, id: 1, at: AT } }],
    as: 2,
    when: { type: 'DeleteEnvironment', project_id: 1, environment_id: 1 },
    then: [{ type: 'EnvironmentDeleted', data: { project_id: 1, id: 1 } }],
  },
  'a review apps clean-up schedules the old stopped review apps, oldest first, a week on': {
    given: [...base, ...review(1, 'review/b', '2026-01-01T00:01:00.000Z'), ...review(2, 'review/a', AT), ...review(3, 'staging/c', AT), ...review(4, 'review/new', LATER)],
    as: 2,
    at: LATER,
    when: { type: 'ScheduleReviewAppsDeletion', project_id: 1, before: '2026-01-01T12:00:00.000Z', limit: 100 },
    then: [
      { type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id: 2, auto_delete_at: '2026-01-09T00:00:00.000Z' } },
      { type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id: 1, auto_delete_at: '2026-01-09T00:00:00.000Z' } },
    ],
    outcome: { environment_ids: [2, 1] },
  },
  'a review apps clean-up leaves out the scheduled ones, and finding none is a bad request': {
    given: [...base, ...review(1, 'review/b', AT), { type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id: 1, auto_delete_at: LATER } }],
    as: 2,
    when: { type: 'ScheduleReviewAppsDeletion', project_id: 1, before: LATER, limit: null },
    error: badRequest(),
  },
  'a reporter schedules no deletion (401, the service\'s refusal)': {
    given: [...base, ...review(1, 'review/b', AT)],
    as: 3,
    when: { type: 'ScheduleReviewAppsDeletion', project_id: 1, before: LATER, limit: 100 },
    error: unauthorized,
  },
  'the clean-up process deletes the scheduled stopped environments past their date, not the started or not yet due': {
    given: [
      ...base,
      ...review(1, 'review/due', AT),
      { type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id: 1, auto_delete_at: AT } },
      ...review(2, 'review/started', AT),
      { type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id: 2, auto_delete_at: AT } },
      { type: 'EnvironmentStarted', data: { project_id: 1, id: 2, at: AT } },
      ...review(3, 'review/later', AT),
      { type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id: 3, auto_delete_at: '2026-01-09T00:00:00.000Z' } },
    ],
    at: LATER,
    when: { type: 'DeleteAutoDeletableEnvironments' },
    then: [{ type: 'EnvironmentDeleted', data: { project_id: 1, id: 1 } }],
  },
  'only the system runs the clean-up process': {
    given: base,
    as: 1,
    when: { type: 'DeleteAutoDeletableEnvironments' },
    error: forbidden(),
  },
  'a first deployment creates its environment': {
    given: base,
    as: 2,
    when: create({ status: 'running' }),
    then: [production, deployed(1, 'running')],
    outcome: { deployment_id: 1 },
  },
  'an identical success returns the last successful deployment': { given: [...base, production, deployed(1, 'success')], as: 2, when: create(), then: [], outcome: { deployment_id: 1 } },
  'iids continue per project': {
    given: [...base, production, deployed(1, 'success')],
    as: 2,
    when: create({ status: 'failed' }),
    then: [deployed(2, 'failed')],
    outcome: { deployment_id: 2 },
  },
  'sha and ref must name commits': {
    given: [...base, production],
    as: 2,
    when: create({ sha_exists: false, ref_exists: false }),
    error: validation({ sha: ['The commit does not exist'], ref: ['The branch or tag does not exist'] }),
  },
  'a success restarts a stopped environment': {
    given: [...base, production, { type: 'EnvironmentStopped', data: { project_id: 1, id: 1, at: AT } }],
    as: 2,
    when: create(),
    then: [deployed(1, 'success'), { type: 'EnvironmentStarted', data: { project_id: 1, id: 1, at: AT } }],
    outcome: { deployment_id: 1 },
  },
  'reporters do not deploy': { given: base, as: 3, when: create(), error: forbidden() },
  'a status moves through the machine': {
    given: [...base, production, deployed(1, 'running')],
    as: 2,
    at: LATER,
    when: { type: 'UpdateDeploymentStatus', project_id: 1, deployment_id: 1, status: 'success' },
    then: [{ type: 'DeploymentStatusChanged', data: { project_id: 1, id: 1, from: 'running', to: 'success', event: 'succeed', at: LATER } }],
  },
  'failed → running is refused': {
    given: [...base, production, deployed(1, 'failed')],
    as: 2,
    when: { type: 'UpdateDeploymentStatus', project_id: 1, deployment_id: 1, status: 'running' },
    error: validation({ status: ['cannot transition via "run"'] }),
  },
  'success → success is refused': {
    given: [...base, production, deployed(1, 'success')],
    as: 2,
    when: { type: 'UpdateDeploymentStatus', project_id: 1, deployment_id: 1, status: 'success' },
    error: validation({ status: ['cannot transition via "succeed"'] }),
  },
};
