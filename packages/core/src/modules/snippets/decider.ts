/** The snippets module's decisions. */
import * as E from 'fp-ts/lib/Either.js';
import { forbidden, forbiddenMessage, notFound, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type IssuedAs } from '../../kernel/decider.js';
import { findProject } from '../projects/queries.js';
import { Errors, isRubyBlank, MAX_NAME } from '../shared/validation.js';
import type { SettingsSlice } from '../settings/projection.js';
import { restrictedVisibilityMessage, settingInteger, visibilityRestricted } from '../settings/queries.js';
import { isAdmin } from '../access/abilities.js';
import type { SnippetCommand, SnippetFileInput } from './commands.js';
import type { SnippetEvent } from './events.js';
import type { SnippetFile, SnippetsView } from './projection.js';
import { canCreateSnippet, canReadSnippet, canUpdateSnippet, canDestroySnippet, findSnippet } from './queries.js';

type Decided = E.Either<DomainError, readonly SnippetEvent[]>;

/** The platform's `snippet_size_limit` default (50 MB) is far above what a log should hold: 1 MB per file at most here. */
const MAX_CONTENT = 1_048_576;

/** Rails' `number_to_human_size` (base 1024, three significant digits, trailing zeros stripped). */
const humanSize = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length);
  let value = Number((bytes / 1024 ** exponent).toPrecision(3));
  if (value >= 1024 && exponent < units.length) value = Number((bytes / 1024 ** ++exponent).toPrecision(3));
  return `${value} ${units[exponent - 1]}`;
};

/** `Snippet`'s content length against `snippet_size_limit` (characters, as Rails' length validation counts). */
const contentTooLong = (errors: Errors, files: readonly SnippetFileInput[], settings: SettingsSlice): void => {
  const limit = Math.min(settingInteger(settings, 'snippet_size_limit'), MAX_CONTENT);
  for (const file of files) {
    // Code points, not UTF-16 units: a string's `size` in Ruby. Long contents only are counted.
    const length = file.content.length <= limit / 2 ? file.content.length : [...file.content].length;
    if (length > limit) {
      errors.add('content', `is too long (${humanSize(length)}). The maximum size is ${humanSize(limit)}.`);
      return;
    }
  }
};
const MAX_FILES = 10;

/** `Snippet` validations and the repository checks of `Snippets::CreateService` (paths unique, at most 10 files). */
const checkSnippet = (title: string | undefined, files: readonly SnippetFileInput[] | undefined, settings: SettingsSlice) => {
  const errors = new Errors().check(title === undefined || !isRubyBlank(title), 'title', "can't be blank").maxLength('title', title, MAX_NAME);
  if (files === undefined) return errors;
  errors.check(files.length > 0, 'content', "can't be blank");
  errors.check(files.length <= MAX_FILES, 'files', `are limited to ${MAX_FILES}`);
  const paths = files.map((file) => file.file_path);
  errors.check(new Set(paths).size === paths.length, 'files', 'have duplicate paths');
  contentTooLong(errors, files, settings);
  errors.check(files.every((file) => file.content !== ''), 'content', "can't be blank");
  return errors;
};

const toFiles = (files: readonly SnippetFileInput[]) => files.map((file) => ({ path: file.file_path, content: file.content }));

/** The same files with the same contents, in the same order. */
const sameFiles = (held: readonly SnippetFile[], given: readonly SnippetFileInput[]): boolean =>
  held.length === given.length && held.every((file, index) => file.path === given[index]!.file_path && file.content === given[index]!.content);

/**
 * `visibility_allowed?` (`Gitlab::VisibilityLevel.allowed_for?`): a restricted level is for administrators only;
 * `forbidden_visibility_error` answers 403 with the model's full message.
 */
const refuseRestricted = (state: SnippetsView, actorId: number | null, visibility: string | undefined): E.Either<DomainError, void> =>
  visibility !== undefined && actorId !== null && !isAdmin(state, actorId) && visibilityRestricted(state.settings, visibility)
    ? E.left(forbiddenMessage(`Visibility level ${restrictedVisibilityMessage(visibility)}`))
    : E.right(undefined);

const decideCreate = ({ command, actor, at }: IssuedAs<SnippetCommand, 'CreateSnippet'>, state: SnippetsView): Decided => {
  const project = findProject(state.projects, command.project_id);
  if (!project) return E.left(notFound('Project'));
  if (actor.userId !== null && !canCreateSnippet(state, actor.userId, project)) return E.left(forbidden());
  const restricted = refuseRestricted(state, actor.userId, command.visibility);
  if (E.isLeft(restricted)) return restricted;
  const errors = checkSnippet(command.title, command.files, state.settings);
  if (!errors.empty) return errors.toEither([]);
  return E.right([
    {
      type: 'SnippetCreated',
      data: {
        project_id: project.id,
        id: state.snippets.sequence + 1,
        title: command.title,
        description: command.description ?? '',
        visibility: command.visibility,
        files: toFiles(command.files),
        author_id: actor.userId,
        created_at: at,
      },
    },
  ]);
};

const locate = (state: SnippetsView, actorId: number | null, projectId: number, id: number, may: typeof canUpdateSnippet) => {
  const project = findProject(state.projects, projectId);
  const snippet = project ? findSnippet(state.snippets, projectId, id) : undefined;
  if (!project || !snippet || (actorId !== null && !canReadSnippet(state, actorId, project, snippet))) return E.left(notFound(project ? 'Snippet' : 'Project'));
  if (actorId !== null && !may(state, actorId, project, snippet)) return E.left(forbidden());
  return E.right({ project, snippet });
};

const decideUpdate = ({ command, actor, at }: IssuedAs<SnippetCommand, 'UpdateSnippet'>, state: SnippetsView): Decided => {
  const located = locate(state, actor.userId, command.project_id, command.id, canUpdateSnippet);
  if (E.isLeft(located)) return located;
  const { snippet } = located.right;
  // `visibility_changed?` and not `visibility_allowed?`.
  const restricted = refuseRestricted(state, actor.userId, command.visibility !== snippet.visibility ? command.visibility : undefined);
  if (E.isLeft(restricted)) return restricted;
  const errors = checkSnippet(command.title, command.files, state.settings);
  if (!errors.empty) return errors.toEither([]);
  const changes: { title?: string; description?: string; visibility?: typeof snippet.visibility; files?: { path: string; content: string }[] } = {};
  if (command.title !== undefined && command.title !== snippet.title) changes.title = command.title;
  if (command.description !== undefined && command.description !== snippet.description) changes.description = command.description;
  if (command.visibility !== undefined && command.visibility !== snippet.visibility) changes.visibility = command.visibility;
  if (command.files !== undefined && !sameFiles(snippet.files, command.files)) changes.files = toFiles(command.files);
  // `snippet.save` of the values it holds writes nothing, and `updated_at` stays. (Given files, the platform commits
  // them to the snippet's repository all the same; the files live in the log here, and no answer shows that commit.)
  if (Object.keys(changes).length === 0) return E.right([]);
  return E.right([{ type: 'SnippetUpdated', data: { project_id: snippet.project_id, id: snippet.id, updated_at: at, ...changes } }]);
};

const decideDelete = ({ command, actor, at }: IssuedAs<SnippetCommand, 'DeleteSnippet'>, state: SnippetsView): Decided => {
  const located = locate(state, actor.userId, command.project_id, command.id, canDestroySnippet);
  if (E.isLeft(located)) return located;
  return E.right([{ type: 'SnippetDeleted', data: { project_id: command.project_id, id: command.id, at } }]);
};

export const decide = decideByType<SnippetCommand, SnippetsView, Decided>({
  CreateSnippet: decideCreate,
  UpdateSnippet: decideUpdate,
  DeleteSnippet: decideDelete,
});
