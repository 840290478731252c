/** Project events other modules emit in their cascades (a deleted group or user takes its projects along). */
import { removeLinksOfSources, removeMembershipsOfSources } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import type { ProjectEvent } from './events.js';

/** A project's deletion: its shares end, then its memberships, then the project. */
export const deleteProjectEvents = (state: MembershipView, projectId: number, at: string, seenLinks = new Set<number>()): (MemberEvent | ProjectEvent)[] => [
  ...removeLinksOfSources(state, [{ type: 'Project', id: projectId }], at, seenLinks),
  ...removeMembershipsOfSources(state, [{ type: 'Project', id: projectId }], at),
  { type: 'ProjectDeleted', data: { id: projectId, at } },
];
