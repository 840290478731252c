/** Project events other modules emit in their cascades (a deleted group or user takes its projects along). */
import { endAccessRequests, removeLinksOfSources, removeMembershipsOfSources } from '../members/builders.js';
import { accessRequestsOf } from '../members/queries.js';
import type { Visibility } from '../shared/access.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import type { ProjectEvent } from './events.js';

/** A project's deletion: its shares end, then its memberships, then the project. */
export const deleteProjectEvents = (state: MembershipView, projectId: number, at: string, seenLinks = new Set<number>()): (MemberEvent | ProjectEvent)[] => [
  ...removeLinksOfSources(state, [{ type: 'Project', id: projectId }], at, seenLinks),
  ...removeMembershipsOfSources(state, [{ type: 'Project', id: projectId }], at),
  ...endAccessRequests(accessRequestsOf(state, 'Project', projectId), at, 'source_deleted'),
  { type: 'ProjectDeleted', data: { id: projectId, at } },
];

/** A project made less visible, as a group transfer lowers what moves under a less visible parent. */
export const projectVisibilityLowered = (id: number, visibility: Visibility, at: string): ProjectEvent => ({ type: 'ProjectUpdated', data: { id, visibility, updated_at: at } });
