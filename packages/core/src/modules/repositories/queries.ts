/** Reads of the repositories slice. */
import { tableEntries, tableGet, tableValues } from '../../kernel/table.js';
import { idsOwnedBy, type OwnerRole } from '../shared/owners.js';
import {
  BRANCH_PREFIX,
  TAG_PREFIX,
  branchRef,
  tagRef,
  type MergeRequest,
  type ProtectedBranch,
  type ProtectedTag,
  type RepositoriesSlice,
  type Repository,
} from './projection.js';

export const findRepository = (repositories: RepositoriesSlice, projectId: number): Repository | undefined => tableGet(repositories.byProject, projectId);

export const listRepositories = (repositories: RepositoriesSlice): Generator<Repository> => tableValues(repositories.byProject);

/** The object a full ref name points at, per the log. */
export const refValue = (repository: Repository, ref: string): string | null => tableGet(repository.refs, ref) ?? null;

export const branchSha = (repository: Repository, name: string): string | null => refValue(repository, branchRef(name));

/**
 * The commit `ref` resolves to when it can only name the branch the log records (what git's revision lookup would find
 * first): not a full sha (taken as an object name), not a name git looks up in the repository's own directory first
 * (`HEAD`, `ORIG_HEAD`, …: capitals and underscores), and no ref of that full name (a branch may be called
 * `refs/tags/v1`), `refs/<ref>` or tag of that name (each looked up before the branches). Null otherwise, or when
 * there is no such branch: ask git.
 */
export const unambiguousBranchSha = (repository: Repository, ref: string): string | null => {
  if (/^[A-Z_]+$/.test(ref) || /^[0-9a-f]{40}$/i.test(ref)) return null;
  if (refValue(repository, ref) !== null || refValue(repository, `refs/${ref}`) !== null || refValue(repository, tagRef(ref)) !== null) return null;
  return branchSha(repository, ref);
};

/** Every ref with its object, sorted by name (what `forgefold verify` compares with git). */
export const repositoryRefs = (repository: Repository): Record<string, string> => {
  const entries = [...tableEntries(repository.refs)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
};

export const branchNames = (repository: Repository): string[] =>
  [...tableEntries(repository.refs)].filter(([ref]) => ref.startsWith(BRANCH_PREFIX)).map(([ref]) => ref.slice(BRANCH_PREFIX.length));

export const tagNames = (repository: Repository): string[] =>
  [...tableEntries(repository.refs)].filter(([ref]) => ref.startsWith(TAG_PREFIX)).map(([ref]) => ref.slice(TAG_PREFIX.length));

/** Every tag with the committer date of the commit it peels to (null: none), unordered. */
export const tagListing = (repository: Repository): { readonly name: string; readonly committed_date: string | null }[] =>
  tagNames(repository).map((name) => ({ name, committed_date: tableGet(repository.tag_dates, name) ?? null }));

export const isEmptyRepository = (repository: Repository): boolean => repository.branch_count === 0;

/**
 * Gitaly's default branch when HEAD names none of `names` (`GetDefaultBranch`): the only branch, else `main`, else
 * `master`, else the first by name; null when there is none.
 */
export const fallbackDefaultBranch = (names: readonly string[]): string | null => {
  if (names.length <= 1) return names[0] ?? null;
  if (names.includes('main')) return 'main';
  if (names.includes('master')) return 'master';
  return [...names].sort()[0]!;
};

/** The platform's `project.default_branch`: HEAD's branch when it exists, else Gitaly's fallback; null when empty. */
export const defaultBranchOf = (repository: Repository): string | null => {
  if (repository.branch_count === 0) return null;
  if (branchSha(repository, repository.default_branch) !== null) return repository.default_branch;
  return fallbackDefaultBranch(branchNames(repository));
};

// ---------------------------------------------------------------------------------------------------------
// Protected refs (`ProtectedRefMatcher`): an exact name, or a pattern where `*` matches any run of characters.

const wildcardCache = new Map<string, RegExp>();

export const isWildcard = (pattern: string): boolean => pattern.includes('*');

export const refPatternMatches = (pattern: string, name: string): boolean => {
  if (pattern === '') return false;
  if (pattern === name) return true;
  if (!isWildcard(pattern)) return false;
  let regex = wildcardCache.get(pattern);
  if (!regex) {
    const quoted = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
      .join('.*?');
    regex = new RegExp(`^${quoted}$`, 's');
    if (wildcardCache.size > 1_000) wildcardCache.clear();
    wildcardCache.set(pattern, regex);
  }
  return regex.test(name);
};

export const matchingProtectedTags = (repository: Repository, name: string): ProtectedTag[] =>
  repository.protected_tags.filter((rule) => refPatternMatches(rule.name, name));

export const matchingProtectedBranches = (repository: Repository, name: string): ProtectedBranch[] =>
  repository.protected_branches.filter((rule) => refPatternMatches(rule.name, name));

export const findProtectedTag = (repository: Repository, name: string): ProtectedTag | undefined => repository.protected_tags.find((rule) => rule.name === name);
export const findProtectedBranch = (repository: Repository, name: string): ProtectedBranch | undefined =>
  repository.protected_branches.find((rule) => rule.name === name);

export const isProtectedTag = (repository: Repository, name: string): boolean => matchingProtectedTags(repository, name).length > 0;
export const isProtectedBranch = (repository: Repository, name: string): boolean => matchingProtectedBranches(repository, name).length > 0;

// ---------------------------------------------------------------------------------------------------------
// Merge requests

export const findMergeRequest = (repositories: RepositoriesSlice, projectId: number, iid: number): MergeRequest | undefined => {
  const repository = findRepository(repositories, projectId);
  const id = repository ? tableGet(repository.merge_requests, iid) : undefined;
  return id === undefined ? undefined : tableGet(repositories.mergeRequests, id);
};

/** A project's merge requests, by iid ascending. */
export const mergeRequestsOf = (repositories: RepositoriesSlice, projectId: number): MergeRequest[] => {
  const repository = findRepository(repositories, projectId);
  if (!repository) return [];
  const out: MergeRequest[] = [];
  for (const id of tableValues(repository.merge_requests)) {
    const mergeRequest = tableGet(repositories.mergeRequests, id);
    if (mergeRequest) out.push(mergeRequest);
  }
  return out.sort((a, b) => a.iid - b.iid);
};

/** The merge requests `userId` authored (`by: 'author'`) or is assigned (`'assignee'`), from the indexes: O(theirs). */
export const mergeRequestsOfUser = (repositories: RepositoriesSlice, userId: number, by: OwnerRole): MergeRequest[] => {
  const out: MergeRequest[] = [];
  for (const id of idsOwnedBy(repositories, userId, by)) {
    const mergeRequest = tableGet(repositories.mergeRequests, id);
    if (mergeRequest) out.push(mergeRequest);
  }
  return out;
};

/** Open merge requests of a project whose source branch is `branch`. */
export const openMergeRequestsFrom = (repositories: RepositoriesSlice, projectId: number, branch: string): MergeRequest[] =>
  mergeRequestsOf(repositories, projectId).filter((mr) => mr.state === 'opened' && mr.source_branch === branch);

export const currentVersion = (mergeRequest: MergeRequest): MergeRequest['versions'][number] | undefined => mergeRequest.versions[mergeRequest.versions.length - 1];

/**
 * `MergeRequest::DRAFT_REGEX` of 14.x: `\A*#{Regexp.union(Gitlab::Regex.merge_request_wip, merge_request_draft)}+\s*`,
 * case-insensitive.
 * Its `\A*` anchors nothing, so `[WIP]` and `WIP:` count anywhere in the title; the draft forms only at its start
 * (`merge_request_draft` has its own `\A`); a bare `WIP` or `Draft` only as the whole title. No leading spaces, and no
 * `Draft ` or `WIP ` without their colon (older versions' forms). Ruby's `\s` is ASCII whitespace alone
 * (`[ \t\n\v\f\r]`), unlike JavaScript's, which also takes no-break and other Unicode spaces: spelled out.
 */
const DRAFT_REGEX = /(?:\[wip\][ \t\n\v\f\r]*|wip:[ \t\n\v\f\r]*|^wip$|^(?:\[draft\]|\(draft\)|draft:|draft[ \t\n\v\f\r]-[ \t\n\v\f\r]|draft$))+[ \t\n\v\f\r]*/i;

/** `MergeRequest.draft?(title)` (`work_in_progress?`: `title =~ DRAFT_REGEX`). */
export const isDraftTitle = (title: string): boolean => DRAFT_REGEX.test(title);

/** `MergeRequest.draftless_title` (`wipless_title`): the title without the first run `DRAFT_REGEX` matches (`sub`). */
export const draftlessTitle = (title: string): string => title.replace(DRAFT_REGEX, '');
