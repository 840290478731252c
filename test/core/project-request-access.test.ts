/**
 * A project's `request_access_enabled` is always held by the projection: ProjectCreated records it only when off, and
 * logs written before it existed never do, so a replay of such an event must give true (the platform's default).
 */
import { describe, expect, it } from 'vitest';
import { findProject, foldMutable, forgefold, type DomainEvent } from '@forgefold/core';

const AT = '2026-01-01T00:00:00.000Z';
const user: DomainEvent = {
  type: 'UserCreated',
  data: { id: 1, username: 'alice', name: 'Alice', email: 'alice@example.com', public_email: null, is_admin: false, bot: null, password_digest: null, namespace_id: 101, created_at: AT, created_by_id: null },
};
const created = (extra: { request_access_enabled?: boolean } = {}): DomainEvent => ({
  type: 'ProjectCreated',
  data: { id: 1, name: 'App', path: 'app', description: '', namespace_id: 101, namespace_kind: 'user', visibility: 'private', creator_id: 1, created_at: AT, ...extra },
});
const fold = (events: readonly DomainEvent[]) => foldMutable(forgefold.decider, forgefold.decider.initialState(), events);

describe('request_access_enabled on replay', () => {
  it('is true for a ProjectCreated without the field (an old log)', () => {
    expect(findProject(fold([user, created()]).projects, 1)?.request_access_enabled).toBe(true);
  });

  it('is false when ProjectCreated records it off, and follows ProjectUpdated', () => {
    expect(findProject(fold([user, created({ request_access_enabled: false })]).projects, 1)?.request_access_enabled).toBe(false);
    const updated: DomainEvent = { type: 'ProjectUpdated', data: { id: 1, updated_at: AT, request_access_enabled: false } };
    expect(findProject(fold([user, created(), updated]).projects, 1)?.request_access_enabled).toBe(false);
  });
});
