/**
 * System notes as projections of the noteables' events (`SystemNotes::IssuablesService`, 14.x). State changes
 * (close, reopen) and labels write resource events on the platform since 13.x, not notes, so they project none.
 */

import { toSentence } from '../shared/validation.js';

/** `changed title from **{-old-}** to **{+new+}**`: the markers wrap the changed span only (`InlineDiffMarkdownMarker`). */
export const titleChangeBody = (from: string, to: string): string => {
  const a = [...from];
  const b = [...to];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const mark = (chars: string[], sign: '-' | '+') => {
    const head = chars.slice(0, prefix).join('');
    const changed = chars.slice(prefix, chars.length - suffix).join('');
    const tail = chars.slice(chars.length - suffix).join('');
    return `${head}${changed === '' ? '' : `{${sign}${changed}${sign}}`}${tail}`;
  };
  return `changed title from **${mark(a, '-')}** to **${mark(b, '+')}**`;
};

/**
 * An update's notes on a merge request: `CommonSystemNotesService` (the draft status, `handle_merge_request_draft`;
 * the title when more than its draft prefix changed; the description; the discussion lock), then
 * `MergeRequests::UpdateService#handle_changes` (the target branch, `change_branch`).
 */
export const mergeRequestSystemNoteBodies = (
  changes: Changes & {
    readonly target_branch?: string;
    readonly previous_target_branch?: string;
    readonly assignee_ids?: readonly number[];
    readonly previous_assignee_ids?: readonly number[];
    readonly reviewer_ids?: readonly number[];
    readonly previous_reviewer_ids?: readonly number[];
  },
  isDraft: (title: string) => boolean,
  draftless: (title: string) => string,
  reference: (userId: number) => string | null,
): string[] => {
  const bodies: string[] = [];
  if (changes.title !== undefined && changes.previous_title !== undefined) {
    if (isDraft(changes.previous_title) !== isDraft(changes.title)) bodies.push(`marked this merge request as **${isDraft(changes.title) ? 'draft' : 'ready'}**`);
    if (draftless(changes.previous_title) !== draftless(changes.title)) bodies.push(titleChangeBody(changes.previous_title, changes.title));
  }
  if (changes.description !== undefined) bodies.push('changed the description');
  if (changes.discussion_locked !== undefined) bodies.push(`${changes.discussion_locked ? 'locked' : 'unlocked'} this merge request`);
  if (changes.target_branch !== undefined && changes.previous_target_branch !== undefined) {
    bodies.push(`changed target branch from \`${changes.previous_target_branch}\` to \`${changes.target_branch}\``);
  }
  // `change_issuable_assignees` and `change_issuable_reviewers` (users as `@username`, `to_sentence`).
  bodies.push(...usersChangedBody(changes.previous_assignee_ids, changes.assignee_ids, reference, 'assigned to', 'unassigned'));
  bodies.push(...usersChangedBody(changes.previous_reviewer_ids, changes.reviewer_ids, reference, 'requested review from', 'removed review request for'));
  return bodies;
};

/** "assigned to @a and @b and unassigned @c" (`change_issuable_assignees`), or none when no user changed. */
const usersChangedBody = (
  before: readonly number[] | undefined,
  after: readonly number[] | undefined,
  reference: (userId: number) => string | null,
  added = 'assigned to',
  removed = 'unassigned',
): string[] => {
  if (before === undefined || after === undefined) return [];
  const names = (ids: readonly number[]) => ids.map(reference).filter((name): name is string => name !== null);
  const gained = names(after.filter((id) => !before.includes(id)));
  const lost = names(before.filter((id) => !after.includes(id)));
  const parts = [...(gained.length > 0 ? [`${added} ${toSentence(gained)}`] : []), ...(lost.length > 0 ? [`${removed} ${toSentence(lost)}`] : [])];
  return parts.length > 0 ? [parts.join(' and ')] : [];
};

interface Changes {
  readonly title?: string;
  readonly previous_title?: string;
  readonly description?: string;
  readonly confidential?: boolean;
  /** Null when removed. */
  readonly due_date?: string | null;
  readonly discussion_locked?: boolean;
  readonly assignee_ids?: readonly number[];
  readonly previous_assignee_ids?: readonly number[];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `SystemNotes::TimeTrackingService#change_due_date`: `Date#to_s(:long)`, "March 1, 2026". */
export const dueDateBody = (date: string | null): string => {
  if (date === null) return 'removed due date';
  const [year, month, day] = date.split('-').map(Number);
  return `changed due date to ${MONTHS[(month ?? 1) - 1]} ${day}, ${year}`;
};

/**
 * The notes an update writes, in the platform's order: `CommonSystemNotesService` (title, description, discussion
 * lock — `SystemNotes::IssuablesService#discussion_lock` — due date), then `Issues::UpdateService#handle_changes`
 * (assignees, `handle_assignee_changes`; confidentiality, issues only). A creation writes the due date's note and
 * then the assignees' (`Issues::CreateService#handle_changes`).
 */
export const systemNoteBodies = (kind: 'issue' | 'epic', changes: Changes, reference: (userId: number) => string | null = () => null): string[] => {
  const bodies: string[] = [];
  if (changes.title !== undefined && changes.previous_title !== undefined) bodies.push(titleChangeBody(changes.previous_title, changes.title));
  if (changes.description !== undefined) bodies.push('changed the description');
  if (changes.discussion_locked !== undefined) bodies.push(`${changes.discussion_locked ? 'locked' : 'unlocked'} this ${kind}`);
  if (changes.due_date !== undefined) bodies.push(dueDateBody(changes.due_date));
  bodies.push(...usersChangedBody(changes.previous_assignee_ids, changes.assignee_ids, reference));
  // `Issues::UpdateService#create_confidentiality_note`; EE's `Epics::UpdateService#handle_confidentiality_change` writes none.
  if (kind === 'issue' && changes.confidential !== undefined) bodies.push(changes.confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
  return bodies;
};

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * `SystemNotes::CommitService#add_commits`: "added N commit(s)", the new commits as an HTML list
 * (`<li>short_id - title</li>`), and a link comparing with the previous version.
 */
export const addedCommitsBody = (commits: readonly { readonly id: string; readonly title: string }[], comparePath: string): string => {
  const count = commits.length;
  const list = commits.map((commit) => `<li>${commit.id.slice(0, 8)} - ${escapeHtml(commit.title)}</li>`).join('');
  return [`added ${count} commit${count === 1 ? '' : 's'}`, `<ul>${list}</ul>`, `[Compare with previous version](${comparePath})`].join('\n\n');
};
