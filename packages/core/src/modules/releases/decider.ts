/**
 * Decisions about releases (`Releases::CreateService`, `UpdateService`, `DestroyService`; `API::Releases` and
 * `API::Release::Links` of 14.7) with the platform's checks in its order and its texts.
 */
import * as E from 'fp-ts/lib/Either.js';
import { conflict, forbidden, forbiddenMessage, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type Decision, type Issued, type IssuedAs } from '../../kernel/decider.js';
import { findProject } from '../projects/queries.js';
import type { Project } from '../projects/projection.js';
import { findRepository, refValue } from '../repositories/queries.js';
import { changesAnything, exceedsLength, isRubyBlank, rubyStrip, tooLong } from '../shared/validation.js';
import { addressableUrlError } from '../shared/url-blocker.js';
import { tagRef } from '../repositories/projection.js';
import type { ReleaseCommand, ReleaseLinkInput } from './commands.js';
import type { ReleaseEvent, ReleaseLinkData } from './events.js';
import type { Release, ReleaseLink, ReleasesView } from './projection.js';
import { canRelease } from './policy.js';
import { findRelease } from './queries.js';

type State = ReleasesView;
type Decided = E.Either<DomainError, Decision<ReleaseEvent>>;

export const RELEASE_MESSAGES = {
  exists: 'Release already exists',
  tag_missing: 'Tag does not exist',
  params_empty: 'params is empty',
  ref_missing: 'Ref is not specified',
  protected_tag: 'You are not allowed to create this tag as it is protected.',
  /** `find_by_tag!` (links API): ActiveRecord::RecordNotFound. */
  record_not_found: '404 Not found',
} as const;

/** `Gitlab::Database::MAX_TEXT_SIZE_LIMIT` on `description`. */
const MAX_DESCRIPTION = 1_000_000;
const DESCRIPTION_TOO_LONG = `is too long (maximum is ${MAX_DESCRIPTION} characters)`;
const descriptionTooLong = (description: string | undefined): boolean => description !== undefined && [...description].length > MAX_DESCRIPTION;

/** `inexistent_milestones`: no milestone is kept, so every title asked for is missing ("Milestone(s) not found: a, b", 400). */
export const milestonesRefusal = (titles: readonly string[] | undefined): DomainError | null =>
  titles && titles.length > 0 ? { _tag: 'BadRequest', message: `Milestone(s) not found: ${titles.join(', ')}` } : null;

const LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const;

/** A character `\w` or one of `-./` (`[\-\.\w\/]`; Ruby's `\w` is ASCII). */
const PATH_CHARACTER = /^[-.\w/]$/;
const ALPHANUMERIC = /^[\da-zA-Z]$/;

/**
 * 14.7's `Releases::Link::FILEPATH_REGEX`, `\A\/[^\/](?!.*\/\/.*)[\-\.\w\/]+[\da-zA-Z]+\z`, without a regular
 * expression (its two adjacent `+` backtrack quadratically, and the length is checked after the format): a slash, any
 * one character but a slash, then at least two of `-`, `.`, `/` or word characters without `//`, the last a letter
 * or a digit. Characters are code points, as Ruby counts them.
 */
const isFilepath = (filepath: string): boolean => {
  if (!filepath.startsWith('/')) return false;
  const [second, ...rest] = [...filepath.slice(1)];
  if (second === undefined || second === '/' || rest.length < 2) return false;
  if (!ALPHANUMERIC.test(rest[rest.length - 1]!)) return false;
  return rest.every((character, index) => PATH_CHARACTER.test(character) && !(character === '/' && rest[index - 1] === '/'));
};

/** `length: { maximum: 128 }` on a link's `filepath`. */
const MAX_FILEPATH = 128;

/** `addressable_url: { schemes: %w(http https ftp) }` on a link's `url`. */
const LINK_URL_SCHEMES = ['http', 'https', 'ftp'] as const;

/** A link's validation errors (`Releases::Link`), against its release's other links. */
const linkErrors = (link: { name: string; url: string; filepath: string | null; link_type: string }, others: readonly { name: string; url: string; filepath: string | null }[]): Record<string, string[]> => {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  // `validates :url, presence: true, addressable_url: …, uniqueness: …`, in that order: a blank url gets both of
  // the first two messages.
  if (isRubyBlank(link.url)) add('url', "can't be blank");
  const urlIssue = addressableUrlError(link.url, LINK_URL_SCHEMES);
  if (urlIssue) add('url', urlIssue);
  else if (others.some((other) => other.url === link.url)) add('url', 'has already been taken');
  if ([...link.url].length > 2048) add('url', 'is too long (maximum is 2048 characters)');
  if ([...link.name].length > 255) add('name', 'is too long (maximum is 255 characters)');
  if (isRubyBlank(link.name)) add('name', "can't be blank");
  else if (others.some((other) => other.name === link.name)) add('name', 'has already been taken');
  // `validates :filepath, uniqueness: { scope: :release }, format: …, allow_blank: true, length: { maximum: 128 }`:
  // in that order, none for a blank file path (nil, "" or white space as Ruby reads it), which is kept as sent.
  if (link.filepath !== null && !isRubyBlank(link.filepath)) {
    if (others.some((other) => other.filepath === link.filepath)) add('filepath', 'has already been taken');
    if (!isFilepath(link.filepath)) add('filepath', 'is in an invalid format');
    if (exceedsLength(link.filepath, MAX_FILEPATH)) add('filepath', tooLong(MAX_FILEPATH));
  }
  if (!(LINK_TYPES as readonly string[]).includes(link.link_type)) add('link_type', 'is not included in the list');
  return errors;
};

/**
 * What `Release`'s `nested_attributes_duplicates` prints as the scope: the links' `release`, a new `Release` object,
 * through Ruby's `Object#to_s` (its class and memory address). The address cannot be reproduced; this one stands in.
 */
const RELEASE_OBJECT = '#<Release:0x0000000000000000>';

/** `child_attributes: %i[name url filepath]` of that validator. */
const DUPLICATE_ATTRIBUTES = ['name', 'url', 'filepath'] as const;

/**
 * `NestedAttributesDuplicatesValidator` on a new release's links: for each attribute, the values more than one link
 * has (in order of first appearance; Ruby's `any?` ignores a nil one alone), one message each.
 */
const duplicateLinkMessages = (links: readonly { name: string; url: string; filepath: string | null }[]): string[] =>
  DUPLICATE_ATTRIBUTES.flatMap((attribute) => {
    const counts = new Map<string | null, number>();
    for (const link of links) counts.set(link[attribute], (counts.get(link[attribute]) ?? 0) + 1);
    const duplicates = [...counts].filter(([, count]) => count > 1).map(([value]) => value);
    return duplicates.some((value) => value !== null) ? [`Links have duplicate values (${duplicates.map((value) => value ?? '').join(', ')}) for ${RELEASE_OBJECT} scope`] : [];
  });

/**
 * `release.save!` of a new release with nested links (`RecordInvalid`'s "Validation failed: …", 400), its
 * validations in the model's order: every link's own errors (`validate_associated_records_for_links`, from `has_many`;
 * a link's uniqueness validators look for stored links of a release that has none yet), `description`'s length, then
 * `nested_attributes_duplicates`, skipped when a link has an error on a name, url or file path. `errors.uniq!` keeps
 * each message once. Public so the shell can refuse before it makes the tag (a refusal changes nothing).
 */
export const releaseSaveRefusal = (inputs: readonly ReleaseLinkInput[], description?: string): DomainError | null => {
  const links = inputs.map(normalizeLink);
  const messages: string[] = [];
  let attributeErrors = false;
  for (const link of links) {
    for (const [field, texts] of Object.entries(linkErrors(link, []))) {
      if ((DUPLICATE_ATTRIBUTES as readonly string[]).includes(field)) attributeErrors = true;
      messages.push(...texts.map((text) => `Links ${field.replace('_', ' ')} ${text}`));
    }
  }
  if (descriptionTooLong(description)) messages.push(`Description ${DESCRIPTION_TOO_LONG}`);
  if (!attributeErrors) messages.push(...duplicateLinkMessages(links));
  return messages.length > 0 ? { _tag: 'BadRequest', message: `Validation failed: ${[...new Set(messages)].join(', ')}` } : null;
};

/** `user_project` then the ability (403 "403 Forbidden" from `authorize!`). */
const locate = (state: State, issued: Issued<{ readonly project_id: number }>): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, issued.command.project_id);
  return project ? E.right(project) : E.left(notFound('Project'));
};

/** `AddressableUrlValidator#strip_value!`: the url is kept without its surrounding whitespace. */
const strippedUrl = (url: string): string => rubyStrip(url);

/** A link as saved: its url stripped, its file path as sent ("" stays "": only nil is none). */
const normalizeLink = (input: ReleaseLinkInput) => ({ name: input.name, url: strippedUrl(input.url), filepath: input.filepath ?? null, link_type: input.link_type ?? 'other' });

const decideCreate = (issued: IssuedAs<ReleaseCommand, 'CreateRelease'>, state: State): Decided => {
  const { command, actor, at } = issued;
  const found = locate(state, issued);
  if (E.isLeft(found)) return found;
  const project = found.right;
  if (!canRelease(state, actor.userId, project, 'create_release')) return E.left(forbidden());
  if (!canRelease(state, actor.userId, project, 'create_release', command.tag)) return E.left(forbiddenMessage(RELEASE_MESSAGES.protected_tag));
  if (findRelease(state.releases, project.id, command.tag)) return E.left(conflict(RELEASE_MESSAGES.exists));
  const milestones = milestonesRefusal(command.milestones);
  if (milestones) return E.left(milestones);
  const repository = findRepository(state.repositories, project.id);
  if (!repository || refValue(repository, tagRef(command.tag)) === null) return E.left(notFound(undefined, RELEASE_MESSAGES.tag_missing));
  // `release.save!`: the model's errors as the exception's message.
  const refused = releaseSaveRefusal(command.links ?? [], command.description);
  if (refused) return E.left(refused);
  let next = state.releases.sequences.link;
  const links: ReleaseLinkData[] = (command.links ?? []).map((input) => ({ id: ++next, ...normalizeLink(input), created_at: at }));
  return E.right([
    {
      type: 'ReleaseCreated',
      data: {
        project_id: project.id,
        id: state.releases.sequences.release + 1,
        tag: command.tag,
        name: command.name ?? null,
        description: command.description ?? null,
        sha: command.sha,
        author_id: actor.userId,
        created_at: at,
        released_at: command.released_at ?? at,
        links,
      },
    },
  ]);
};

/** `authorize! :update_release, release` (403 when there is none), then the service's checks. */
const locateRelease = (state: State, issued: IssuedAs<ReleaseCommand, 'UpdateRelease' | 'DeleteRelease'>, ability: 'update_release' | 'destroy_release'): E.Either<DomainError, { project: Project; release: Release }> => {
  const found = locate(state, issued);
  if (E.isLeft(found)) return found;
  const project = found.right;
  const release = findRelease(state.releases, project.id, issued.command.tag);
  if (!release || !canRelease(state, issued.actor.userId, project, ability, release.tag)) return E.left(forbidden());
  const repository = findRepository(state.repositories, project.id);
  if (!repository || refValue(repository, tagRef(release.tag)) === null) return E.left(notFound(undefined, RELEASE_MESSAGES.tag_missing));
  return E.right({ project, release });
};

const decideUpdate = (issued: IssuedAs<ReleaseCommand, 'UpdateRelease'>, state: State): Decided => {
  const found = locateRelease(state, issued, 'update_release');
  if (E.isLeft(found)) return found;
  const { release } = found.right;
  const { name, description, released_at, milestones } = issued.command;
  // `params.except(:tag).empty?`: an empty milestone list (clearing them) counts as a parameter.
  if (name === undefined && description === undefined && released_at === undefined && milestones === undefined) return E.left({ _tag: 'BadRequest', message: RELEASE_MESSAGES.params_empty });
  const unknown = milestonesRefusal(milestones);
  if (unknown) return E.left(unknown);
  // `release.update` failing: `error(release.errors.messages, 400)`.
  if (descriptionTooLong(description)) return E.left(validation({ description: [DESCRIPTION_TOO_LONG] }));
  const changes = { ...(name !== undefined ? { name } : {}), ...(description !== undefined ? { description } : {}), ...(released_at !== undefined ? { released_at } : {}) };
  // `release.update(params)` with the values it holds saves nothing.
  if (!changesAnything(release, changes)) return E.right([]);
  return E.right([{ type: 'ReleaseUpdated', data: { project_id: release.project_id, id: release.id, updated_at: issued.at, ...changes } }]);
};

const decideDelete = (issued: IssuedAs<ReleaseCommand, 'DeleteRelease'>, state: State): Decided => {
  const found = locateRelease(state, issued, 'destroy_release');
  if (E.isLeft(found)) return found;
  const { release } = found.right;
  return E.right([{ type: 'ReleaseDeleted', data: { project_id: release.project_id, id: release.id } }]);
};

/** The links API: `find_by_tag!` (404 "404 Not found"), then `authorize! ability, release`. */
const locateLinkRelease = (state: State, issued: Issued<{ readonly project_id: number; readonly tag: string }>, ability: 'create_release' | 'update_release' | 'destroy_release'): E.Either<DomainError, Release> => {
  const found = locate(state, issued);
  if (E.isLeft(found)) return found;
  const release = findRelease(state.releases, found.right.id, issued.command.tag);
  if (!release) return E.left(notFound(undefined, RELEASE_MESSAGES.record_not_found));
  if (!canRelease(state, issued.actor.userId, found.right, ability, release.tag)) return E.left(forbidden());
  return E.right(release);
};

const findLink = (release: Release, id: number): E.Either<DomainError, ReleaseLink> => {
  const link = release.links.find((candidate) => candidate.id === id);
  return link ? E.right(link) : E.left(notFound());
};

const decideCreateLink = (issued: IssuedAs<ReleaseCommand, 'CreateReleaseLink'>, state: State): Decided => {
  const found = locateLinkRelease(state, issued, 'create_release');
  if (E.isLeft(found)) return found;
  const release = found.right;
  const link = normalizeLink(issued.command);
  const errors = linkErrors(link, release.links);
  if (Object.keys(errors).length > 0) return E.left(validation(errors));
  return E.right([{ type: 'ReleaseLinkCreated', data: { project_id: release.project_id, release_id: release.id, id: state.releases.sequences.link + 1, ...link, created_at: issued.at } }]);
};

const decideUpdateLink = (issued: IssuedAs<ReleaseCommand, 'UpdateReleaseLink'>, state: State): Decided => {
  const found = locateLinkRelease(state, issued, 'update_release');
  if (E.isLeft(found)) return found;
  const release = found.right;
  const current = findLink(release, issued.command.link_id);
  if (E.isLeft(current)) return current;
  const { name, url, filepath, link_type } = issued.command;
  const changes = {
    ...(name !== undefined ? { name } : {}),
    ...(url !== undefined ? { url: strippedUrl(url) } : {}),
    ...(filepath !== undefined ? { filepath } : {}),
    ...(link_type !== undefined ? { link_type } : {}),
  };
  const errors = linkErrors({ ...current.right, ...changes }, release.links.filter((other) => other.id !== current.right.id));
  if (Object.keys(errors).length > 0) return E.left(validation(errors));
  if (!changesAnything(current.right, changes)) return E.right([]);
  return E.right([{ type: 'ReleaseLinkUpdated', data: { project_id: release.project_id, release_id: release.id, id: current.right.id, ...changes } }]);
};

const decideDeleteLink = (issued: IssuedAs<ReleaseCommand, 'DeleteReleaseLink'>, state: State): Decided => {
  const found = locateLinkRelease(state, issued, 'destroy_release');
  if (E.isLeft(found)) return found;
  const current = findLink(found.right, issued.command.link_id);
  if (E.isLeft(current)) return current;
  return E.right([{ type: 'ReleaseLinkDeleted', data: { project_id: found.right.project_id, release_id: found.right.id, id: current.right.id } }]);
};

export const decide = decideByType<ReleaseCommand, State, Decided>({
  CreateRelease: decideCreate,
  UpdateRelease: decideUpdate,
  DeleteRelease: decideDelete,
  CreateReleaseLink: decideCreateLink,
  UpdateReleaseLink: decideUpdateLink,
  DeleteReleaseLink: decideDeleteLink,
});
