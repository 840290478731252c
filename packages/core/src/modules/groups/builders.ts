/** Group events other modules emit in their cascades (a deleted user takes the groups they alone own along). */
import { removeLinksOfSources, removeMembershipsOfSources } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import { deleteProjectEvents } from '../projects/builders.js';
import type { ProjectEvent } from '../projects/events.js';
import { projectsInNamespace } from '../projects/queries.js';
import type { GroupEvent } from './events.js';
import type { Group } from './projection.js';
import { selfAndDescendants } from './queries.js';

/** Deletes a group's subtree, deepest first, so that every event refers to a source that still exists when folded. */
export const deleteGroupEvents = (state: MembershipView, group: Group, at: string): (GroupEvent | ProjectEvent | MemberEvent)[] => {
  const events: (GroupEvent | ProjectEvent | MemberEvent)[] = [];
  const seenLinks = new Set<number>();
  for (const doomed of selfAndDescendants(state.groups, group).reverse()) {
    for (const project of projectsInNamespace(state.projects, doomed.id)) events.push(...deleteProjectEvents(state, project.id, at, seenLinks));
    // Shares end before the memberships they lend, so the audit trail shows every access going away.
    events.push(...removeLinksOfSources(state, [{ type: 'Namespace', id: doomed.id }], at, seenLinks));
    events.push(...removeMembershipsOfSources(state, [{ type: 'Namespace', id: doomed.id }], at));
    events.push({ type: 'GroupDeleted', data: { id: doomed.id, at } });
  }
  return events;
};
