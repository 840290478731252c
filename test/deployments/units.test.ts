/** Units of the deployments module: the platform's slug table, and the status machine as a property. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  DEPLOYMENT_STATUSES,
  environmentSlug,
  eventsOf,
  findDeployment,
  findEnvironment,
  foldMutable,
  forgefold,
  transition,
  type DeploymentStatus,
  type DomainEvent,
  type ForgefoldCommand,
} from '@forgefold/core';
import { AT, projectCreated, stateOf, userCreated } from '../specs/spec.js';

describe('environment slugs (Gitlab::Slug::Environment spec, digest stubbed to 64 "a")', () => {
  const table: Record<string, string> = {
    'staging-12345678901234567': 'staging-123456789-q517sa',
    '9-staging-123456789012345': 'env-9-staging-123-q517sa',
    'staging-1234567890123456': 'staging-1234567890123456',
    'staging-1234567890123456-': 'staging-123456789-q517sa',
    production: 'production',
    PRODUCTION: 'production-q517sa',
    'review/1-foo': 'review-1-foo-q517sa',
    '1-foo': 'env-1-foo-q517sa',
    '1/foo': 'env-1-foo-q517sa',
    'foo-': 'foo',
    'foo--bar': 'foo-bar-q517sa',
    'foo**bar': 'foo-bar-q517sa',
    '*-foo': 'env-foo-q517sa',
    'staging-12345678-': 'staging-12345678',
    'staging-12345678-01234567': 'staging-12345678-q517sa',
  };
  for (const [name, slug] of Object.entries(table)) it(`${name} → ${slug}`, () => expect(environmentSlug(name, () => 'a'.repeat(64))).toBe(slug));

  it('always gives a valid DNS label of at most 24 characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), (name) => {
        const slug = environmentSlug(name);
        expect(slug.length).toBeLessThanOrEqual(24);
        expect(slug).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(slug.endsWith('-')).toBe(false);
      }),
    );
  });
});

describe('the deployment status machine, through the decider', () => {
  const requested = ['running', 'success', 'failed', 'canceled'] as const;
  const A = 'a'.repeat(40);
  const given: DomainEvent[] = [userCreated(1, 'root', { admin: true }), projectCreated(1, 'app', 101, { kind: 'user' })];
  const actor = { userId: 1, origin: 'api' as const };

  it('no sequence of updates reaches a state the machine forbids, and a refused update changes nothing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...requested), fc.array(fc.constantFrom(...requested), { maxLength: 25 }), (first, updates) => {
        let state = stateOf(given);
        const run = (command: ForgefoldCommand) => {
          const decided = forgefold.decider.decide({ command, actor, at: AT }, state);
          if (E.isRight(decided)) state = foldMutable(forgefold.decider, structuredClone(state), eventsOf(decided.right));
          return decided;
        };
        const created = run({ type: 'CreateDeployment', project_id: 1, environment: 'production', sha: A, ref: 'main', tag: false, status: first, sha_exists: true, ref_exists: true });
        expect(E.isRight(created)).toBe(true);
        let status: DeploymentStatus = first;
        for (const next of updates) {
          const decided = run({ type: 'UpdateDeploymentStatus', project_id: 1, deployment_id: 1, status: next });
          // The machine's rules (reference §3.7): `run` only from created; the others from anything but their target.
          const allowed = next === 'running' ? false : status !== next;
          expect(E.isRight(decided)).toBe(allowed);
          if (allowed) status = next;
          const deployment = findDeployment(state.deployments, 1, 1)!;
          expect(deployment.status).toBe(status);
          expect(DEPLOYMENT_STATUSES).toContain(deployment.status);
          // `last_deployment` is always the latest success.
          const environment = findEnvironment(state.deployments, 1, deployment.environment_id)!;
          expect(environment.last_success_id).toBe(status === 'success' ? 1 : null);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('transition names the event that cannot fire', () => {
    expect(transition('failed', 'running')).toEqual({ ok: false, event: 'run' });
    expect(transition('success', 'failed')).toEqual({ ok: true, event: 'drop' });
  });
});
