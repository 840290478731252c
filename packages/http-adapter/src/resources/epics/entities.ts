/**
 * `EE::API::Entities::Epic` (14.7), lean: fixed dates only (no milestones), no parents or children here. The dates'
 * sources and `web_edit_url` only for those who may administer the epic (`if: can_admin_epic`); no `reference`
 * (`if: { with_reference: true }`, which `epic_options` never sets) and no `color` (later than 14.7).
 */
import { canUpdateEpic, epicParticipants, findUser, type Epic, type Group } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';

/**
 * `group`: the epic's own; `from`: the group the request named (`references.relative` is seen from it);
 * `subscribed`: the single epic's `include_subscribed: true` (`Epic#subscribed?`: participation, as no one
 * subscribes to epics here).
 */
export const epicEntity = (epic: Epic, group: Group, ctx: PresentContext, from: Group = group, options: { readonly subscribed?: boolean } = {}) => {
  const author = epic.author_id === null ? undefined : findUser(ctx.state.users, epic.author_id);
  const apiGroup = `${ctx.baseUrl}/api/v4/groups/${group.id}`;
  const dueDate = epic.due_date_is_fixed === true ? (epic.due_date_fixed ?? null) : null;
  const admin = canUpdateEpic(ctx.state, ctx.viewerId, group, epic);
  const webUrl = `${ctx.baseUrl}/groups/${group.full_path}/-/epics/${epic.iid}`;
  return {
    id: epic.id,
    iid: epic.iid,
    group_id: epic.group_id,
    parent_id: null,
    parent_iid: null,
    title: epic.title,
    description: epic.description,
    confidential: epic.confidential,
    author: author ? userBasic(author, ctx) : null,
    // `Epics::UpdateDatesService`: the fixed date when it is in force, else the milestones' and children's (none here).
    start_date: epic.start_date_is_fixed === true ? (epic.start_date_fixed ?? null) : null,
    ...(admin ? { start_date_is_fixed: epic.start_date_is_fixed ?? false, start_date_fixed: epic.start_date_fixed ?? null, start_date_from_inherited_source: null, start_date_from_milestones: null } : {}),
    end_date: dueDate,
    due_date: dueDate,
    ...(admin ? { due_date_is_fixed: epic.due_date_is_fixed ?? false, due_date_fixed: epic.due_date_fixed ?? null, due_date_from_inherited_source: null, due_date_from_milestones: null } : {}),
    state: epic.state,
    ...(admin ? { web_edit_url: `/groups/${group.full_path}/-/epics/${epic.iid}` } : {}),
    web_url: webUrl,
    // `Epic#to_reference(from)`: the full path unless seen from its own group.
    references: { short: `&${epic.iid}`, relative: from.id === group.id ? `&${epic.iid}` : `${group.full_path}&${epic.iid}`, full: `${group.full_path}&${epic.iid}` },
    created_at: epic.created_at,
    updated_at: epic.updated_at,
    closed_at: epic.closed_at,
    labels: [...epic.labels].sort(),
    upvotes: 0,
    downvotes: 0,
    ...(options.subscribed ? { subscribed: ctx.viewerId !== null && epicParticipants(ctx.state, group, epic, ctx.viewerId).includes(ctx.viewerId) } : {}),
    _links: { self: `${apiGroup}/epics/${epic.iid}`, epic_issues: `${apiGroup}/epics/${epic.iid}/issues`, group: apiGroup, parent: null },
  };
};
