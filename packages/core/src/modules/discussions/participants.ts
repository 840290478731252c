/**
 * `Participable#participants` of an issue or a merge request (14.7): who takes part in it, the list `GET …/issues/:iid/participants`
 * answers and `Issue#subscribed?` falls back to. Participable walks the issue's participant attributes depth first:
 * the assignees (in order), the authors of its notes (system notes included: whoever changed something), the issue's
 * author; then the users its texts mention (title, description, every note), as the `ReferenceExtractor` gathers them:
 * the direct members of each mentioned group the reader may read, then each mentioned user by id. Whoever cannot read the project is left
 * out (`Ability.users_that_can_read_project`). Not here: `@all` (the project's whole team).
 */
import { canReadGroup, canReadProject } from '../access/abilities.js';
import { findGroupByFullPath } from '../groups/queries.js';
import type { Issue } from '../issues/projection.js';
import type { Epic } from '../epics/projection.js';
import type { Group } from '../groups/projection.js';
import type { MergeRequest } from '../repositories/projection.js';
import { membersOfSource } from '../members/queries.js';
import type { Project } from '../projects/projection.js';
import { findUser, findUserByUsername } from '../users/queries.js';
import { withoutCode } from './mentions.js';
import type { DiscussionsView } from './projection.js';
import { noteableKey, notesOfNoteable } from './queries.js';

/** A namespace path (`NAMESPACE_FORMAT_REGEX`, no trailing dot), possibly nested: `User.reference_pattern`. */
const NAMESPACE = '(?:[A-Za-z0-9_.][A-Za-z0-9_.-]*[A-Za-z0-9_-]|[A-Za-z0-9_])';
const USER_REFERENCE = new RegExp(`(?<![A-Za-z0-9_])@(${NAMESPACE}(?:\\/${NAMESPACE}){0,20})`, 'g');

/**
 * The users `texts` mention, as `reader` reads them: the direct members of the mentioned groups `reader` may read
 * first, then the mentioned users by id, each once.
 */
const mentionedUsers = (state: DiscussionsView, texts: readonly string[], reader: number | null): number[] => {
  const groups = new Set<number>();
  const users = new Set<number>();
  for (const text of texts) {
    for (const [, path] of withoutCode(text).matchAll(USER_REFERENCE)) {
      const user = path!.includes('/') ? undefined : findUserByUsername(state.users, path!);
      if (user) users.add(user.id);
      else {
        const group = findGroupByFullPath(state.groups, path!);
        if (group && canReadGroup(state, reader, group)) groups.add(group.id);
      }
    }
  }
  const out = new Set<number>();
  for (const groupId of groups) for (const member of membersOfSource(state.members, 'Namespace', groupId)) if (member.user_id !== null && member.state === 'active') out.add(member.user_id);
  for (const id of [...users].sort((a, b) => a - b)) out.add(id);
  return [...out];
};

/** What Issuable's participant attributes read: an issue or a merge request. */
interface Issuable {
  readonly id: number;
  readonly title: string;
  readonly description: string;
  readonly author_id: number | null;
  readonly assignee_ids: readonly number[];
}

/**
 * An issuable's participants' user ids, in the platform's order, as `viewer` sees them (`participants(current_user)`;
 * for nobody, the references are read as the author); `reads`: who may read its project (or group).
 */
const participantsOf = (state: DiscussionsView, issuable: Issuable, key: string, viewer: number | null, reads: (userId: number) => boolean): number[] => {
  const notes = notesOfNoteable(state.discussions, key);
  const ids = new Set<number>(issuable.assignee_ids);
  for (const note of notes) if (note.author_id !== null) ids.add(note.author_id);
  if (issuable.author_id !== null) ids.add(issuable.author_id);
  for (const id of mentionedUsers(state, [issuable.title, issuable.description, ...notes.map((note) => note.body)], viewer ?? issuable.author_id)) ids.add(id);
  return [...ids].filter((id) => findUser(state.users, id) !== undefined && reads(id));
};

const issuableParticipants = (state: DiscussionsView, project: Project, issuable: Issuable, key: string, viewer: number | null): number[] =>
  participantsOf(state, issuable, key, viewer, (id) => canReadProject(state, id, project));

/** An epic's (EE): its author, the authors of its notes and the users its texts mention who may read its group. */
export const epicParticipants = (state: DiscussionsView, group: Group, epic: Epic, viewer: number | null): number[] =>
  participantsOf(state, { ...epic, assignee_ids: [] }, noteableKey('Epic', epic.id), viewer, (id) => canReadGroup(state, id, group));

export const issueParticipants = (state: DiscussionsView, project: Project, issue: Issue, viewer: number | null): number[] =>
  issuableParticipants(state, project, issue, noteableKey('Issue', issue.id), viewer);

/** A merge request's (14.7 has no reviewers here: Issuable's attributes alone). */
export const mergeRequestParticipants = (state: DiscussionsView, project: Project, mr: MergeRequest, viewer: number | null): number[] =>
  issuableParticipants(state, project, mr, noteableKey('MergeRequest', mr.id), viewer);
