/** The epics module's decisions. */
import * as E from 'fp-ts/lib/Either.js';
import { forbidden, notFound, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type IssuedAs } from '../../kernel/decider.js';
import { tableGet } from '../../kernel/table.js';
import { findGroup } from '../groups/queries.js';
import type { Group } from '../groups/projection.js';
import { canOnGroup } from '../access/abilities.js';
import { Errors, isRubyBlank, MAX_NAME, rubyStrip, sameMembers } from '../shared/validation.js';
import type { EpicCommand, EpicDates } from './commands.js';
import type { EpicEvent } from './events.js';
import type { Epic, EpicsView } from './projection.js';
import { canCreateEpic, canDestroyEpic, canUpdateEpic, findEpic } from './queries.js';

type Decided = E.Either<DomainError, readonly EpicEvent[]>;

const checkTitle = (title: string | undefined) => new Errors().check(title === undefined || !isRubyBlank(title), 'title', "can't be blank").maxLength('title', title, MAX_NAME);
const uniq = (values: readonly string[]): string[] => [...new Set(values.map(rubyStrip).filter((value) => value !== ''))];

/** `set_epic_created_at` / `set_epic_updated_at` (EE GroupPolicy): administrators and the group's owners. */
const mayBackdate = (state: EpicsView, userId: number | null, group: Group): boolean => userId === null || canOnGroup(state, userId, 'admin_group', group);

const DATE_FIELDS = ['start_date_fixed', 'start_date_is_fixed', 'due_date_fixed', 'due_date_is_fixed'] as const;

/** The dates a command gives (`declared_params(include_missing: false)`), a null date as given. */
const datesGiven = (command: EpicDates): EpicDates => {
  const out: { -readonly [K in keyof EpicDates]: EpicDates[K] } = {};
  for (const field of DATE_FIELDS) if (command[field] !== undefined) Object.assign(out, { [field]: command[field] });
  return out;
};

/** The dates a command changes on an epic (absent on the epic: null date, not in force). */
const datesChanged = (command: EpicDates, epic: Epic): EpicDates => {
  const current: Required<EpicDates> = {
    start_date_fixed: epic.start_date_fixed ?? null,
    start_date_is_fixed: epic.start_date_is_fixed ?? false,
    due_date_fixed: epic.due_date_fixed ?? null,
    due_date_is_fixed: epic.due_date_is_fixed ?? false,
  };
  const out: { -readonly [K in keyof EpicDates]: EpicDates[K] } = {};
  for (const field of DATE_FIELDS) if (command[field] !== undefined && command[field] !== current[field]) Object.assign(out, { [field]: command[field] });
  return out;
};

const decideCreate = ({ command, actor, at }: IssuedAs<EpicCommand, 'CreateEpic'>, state: EpicsView): Decided => {
  const group = findGroup(state.groups, command.group_id);
  if (!group) return E.left(notFound('Group'));
  if (actor.userId !== null && !canCreateEpic(state, actor.userId, group)) return E.left(forbidden());
  const errors = checkTitle(command.title);
  if (!errors.empty) return errors.toEither([]);
  return E.right([
    {
      type: 'EpicCreated',
      data: {
        group_id: group.id,
        id: state.epics.sequence + 1,
        iid: (tableGet(state.epics.byGroup, group.id)?.last_iid ?? 0) + 1,
        title: command.title,
        description: command.description ?? '',
        confidential: command.confidential ?? false,
        labels: uniq(command.labels ?? []),
        author_id: actor.userId,
        created_at: command.created_at !== undefined && mayBackdate(state, actor.userId, group) ? command.created_at : at,
        ...datesGiven(command),
      },
    },
  ]);
};

const decideUpdate = ({ command, actor, at }: IssuedAs<EpicCommand, 'UpdateEpic'>, state: EpicsView): Decided => {
  const group = findGroup(state.groups, command.group_id);
  const epic = group ? findEpic(state.epics, group.id, command.iid) : undefined;
  if (!group) return E.left(notFound('Group'));
  // `authorize!(:admin_epic, epic)`: a missing epic (nil, `NilPolicy`) or one the caller may not change is a 403.
  if (!epic || (actor.userId !== null && !canUpdateEpic(state, actor.userId, group, epic))) return E.left(forbidden());
  const errors = checkTitle(command.title);
  if (!errors.empty) return errors.toEither([]);
  const changes: { title?: string; previous_title?: string; description?: string; confidential?: boolean; labels?: string[] } & EpicDates = {};
  if (command.title !== undefined && command.title !== epic.title) Object.assign(changes, { title: command.title, previous_title: epic.title });
  if (command.description !== undefined && command.description !== epic.description) changes.description = command.description;
  if (command.confidential !== undefined && command.confidential !== epic.confidential) changes.confidential = command.confidential;
  if (command.labels !== undefined && !sameMembers(epic.labels, uniq(command.labels))) changes.labels = uniq(command.labels);
  Object.assign(changes, datesChanged(command, epic));
  const base = { group_id: group.id, id: epic.id, iid: epic.iid };
  const events: EpicEvent[] = [];
  const updatedAt = command.updated_at !== undefined && mayBackdate(state, actor.userId, group) ? command.updated_at : at;
  if (Object.keys(changes).length > 0) events.push({ type: 'EpicUpdated', data: { ...base, updated_by_id: actor.userId, updated_at: updatedAt, ...changes } });
  if (command.state_event === 'close' && epic.state === 'opened') events.push({ type: 'EpicClosed', data: { ...base, closed_by_id: actor.userId, at } });
  if (command.state_event === 'reopen' && epic.state === 'closed') events.push({ type: 'EpicReopened', data: { ...base, at } });
  return E.right(events);
};

const decideDelete = ({ command, actor, at }: IssuedAs<EpicCommand, 'DeleteEpic'>, state: EpicsView): Decided => {
  const group = findGroup(state.groups, command.group_id);
  const epic = group ? findEpic(state.epics, group.id, command.iid) : undefined;
  if (!group) return E.left(notFound('Group'));
  // `authorize!(:destroy_epic, epic)`, as for updates.
  if (!epic || (actor.userId !== null && !canDestroyEpic(state, actor.userId, group, epic))) return E.left(forbidden());
  return E.right([{ type: 'EpicDeleted', data: { group_id: group.id, id: epic.id, iid: epic.iid, at } }]);
};

export const decide = decideByType<EpicCommand, EpicsView, Decided>({
  CreateEpic: decideCreate,
  UpdateEpic: decideUpdate,
  DeleteEpic: decideDelete,
});
