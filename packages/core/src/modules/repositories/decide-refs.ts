/** Decisions about refs: a repository for a project, and ref moves (by the API or by a push). */
import * as E from 'fp-ts/lib/Either.js';
import { badRequest, forbidden, notFound, type DomainError } from '../../kernel/domain-error.js';
import type { IssuedAs } from '../../kernel/decider.js';
import { findProject } from '../projects/queries.js';
import type { Project } from '../projects/projection.js';
import type { RefUpdate, RepositoryCommand, VersionFact } from './commands.js';
import type { RepositoryEvent, Via } from './events.js';
import { BRANCH_PREFIX, TAG_PREFIX, type Repository, type RepositoriesView } from './projection.js';
import { canRepository, refMoveRefusal } from './policy.js';
import { defaultBranchCreatedEvents } from './default-branch-protection.js';
import { findRepository, isEmptyRepository, openMergeRequestsFrom, refValue } from './queries.js';

type State = RepositoriesView;

const SHA = /^[0-9a-f]{40}$/;

export const requireProject = (state: State, id: number): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, id);
  return project ? E.right(project) : E.left(notFound('Project'));
};

export const requireRepository = (state: State, projectId: number): E.Either<DomainError, Repository> => {
  const repository = findRepository(state.repositories, projectId);
  return repository ? E.right(repository) : E.left(notFound());
};

/**
 * `Projects::UpdateService`: maintainers move HEAD to an existing branch ("Could not set the default branch"), or,
 * while the repository has no branch (a project being created), to any name.
 */
export const decideChangeDefaultBranch = (issued: IssuedAs<RepositoryCommand, 'ChangeDefaultBranch'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> => {
  const { command, actor } = issued;
  const project = findProject(state.projects, command.project_id);
  if (!project) return E.left(notFound('Project'));
  const repository = findRepository(state.repositories, project.id);
  if (!repository) return E.left(notFound());
  const initial = command.initial === true && isEmptyRepository(repository);
  if (actor.userId !== null && !initial && !canRepository(state, actor.userId, project, 'admin_project')) return E.left(forbidden());
  const exists = refValue(repository, `${BRANCH_PREFIX}${command.branch}`) !== null;
  if (!exists && (!isEmptyRepository(repository) || command.branch.trim() === '')) return E.left({ _tag: 'BadRequest', message: 'Could not set the default branch' });
  if (repository.default_branch === command.branch) return E.right([]);
  return E.right([{ type: 'DefaultBranchChanged', data: { project_id: project.id, default_branch: command.branch } }]);
};

/** The event of one ref move (the move was checked). */
const refEvent = (projectId: number, change: RefUpdate, via: Via): RepositoryEvent => {
  const isBranch = change.ref.startsWith(BRANCH_PREFIX);
  const name = change.ref.slice(isBranch ? BRANCH_PREFIX.length : TAG_PREFIX.length);
  const base = { project_id: projectId, name, via };
  if (isBranch) {
    if (change.old_sha === null) return { type: 'BranchCreated', data: { ...base, sha: change.new_sha! } };
    if (change.new_sha === null) return { type: 'BranchDeleted', data: { ...base, old_sha: change.old_sha } };
    return { type: 'BranchUpdated', data: { ...base, old_sha: change.old_sha, new_sha: change.new_sha, forced: change.forced ?? false } };
  }
  if (change.new_sha === null) return { type: 'TagDeleted', data: { ...base, old_target: change.old_sha! } };
  const tag = change.tag!;
  const details = { target: change.new_sha, commit_sha: tag.commit_sha, committed_date: tag.committed_date, message: tag.message, tagger: tag.tagger };
  return change.old_sha === null ? { type: 'TagCreated', data: { ...base, ...details } } : { type: 'TagUpdated', data: { ...base, old_target: change.old_sha, ...details } };
};

const changeProblem = (change: RefUpdate): string | null => {
  if (!change.ref.startsWith(BRANCH_PREFIX) && !change.ref.startsWith(TAG_PREFIX)) return null; // the policy's refusal
  if (change.ref === BRANCH_PREFIX || change.ref === TAG_PREFIX) return `invalid ref ${change.ref}`;
  if (change.old_sha === null && change.new_sha === null) return `nothing to change for ${change.ref}`;
  if ((change.old_sha !== null && !SHA.test(change.old_sha)) || (change.new_sha !== null && !SHA.test(change.new_sha))) return `invalid object id for ${change.ref}`;
  if (change.ref.startsWith(TAG_PREFIX) && change.new_sha !== null && change.tag === undefined) return `missing tag details for ${change.ref}`;
  return null;
};

/**
 * New versions of the open merge requests whose source branch moves, from the shell's facts (a fact is used only
 * for the head the branch moves to). Ids are drawn from the module's sequence, after `drawn` already taken.
 */
export const versionEvents = (
  state: State,
  projectId: number,
  moves: readonly { readonly branch: string; readonly sha: string }[],
  facts: readonly VersionFact[],
  at: string,
  drawn = 0,
  actorId: number | null = null,
): RepositoryEvent[] => {
  const events: RepositoryEvent[] = [];
  let next = state.repositories.sequences.merge_request_diff + drawn;
  for (const move of moves) {
    for (const mr of openMergeRequestsFrom(state.repositories, projectId, move.branch)) {
      const fact = facts.find((candidate) => candidate.iid === mr.iid && candidate.head_commit_sha === move.sha);
      if (!fact) continue;
      events.push({
        type: 'MergeRequestVersionCreated',
        data: {
          project_id: projectId,
          iid: mr.iid,
          id: ++next,
          head_commit_sha: fact.head_commit_sha,
          base_commit_sha: fact.base_commit_sha,
          start_commit_sha: fact.start_commit_sha,
          created_at: at,
          ...(fact.commits && fact.commits.length > 0 ? { commits: fact.commits.map(({ id, title }) => ({ id, title })), pushed_by_id: actorId } : {}),
        },
      });
    }
  }
  return events;
};

/**
 * Ref moves, all or none: each must start from the value the log holds (compare-and-swap: the log is a chain of
 * moves) and pass the pre-receive checks, judged against the refs before the moves, as one push is.
 */
export const decideUpdateRefs = (issued: IssuedAs<RepositoryCommand, 'UpdateRefs'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> => {
  const { command, actor, at } = issued;
  const project = findProject(state.projects, command.project_id);
  if (!project) return E.left(notFound('Project'));
  const repository = findRepository(state.repositories, project.id);
  if (!repository) return E.left(notFound());
  if (command.changes.length === 0) return E.left(badRequest('no ref changes'));
  const seen = new Set<string>();
  for (const change of command.changes) {
    if (seen.has(change.ref)) return E.left(badRequest(`${change.ref} changes twice`));
    seen.add(change.ref);
    const problem = changeProblem(change);
    if (problem) return E.left(badRequest(problem));
    const refusal = refMoveRefusal(state, command.imported ? null : actor.userId, project, repository, change, command.via);
    if (refusal) return E.left({ _tag: 'BadRequest', message: refusal });
    if (refValue(repository, change.ref) !== change.old_sha) return E.left({ _tag: 'BadRequest', message: `Could not update ${change.ref}. Please refresh and try again.` });
  }
  const events: RepositoryEvent[] = command.changes.map((change) => refEvent(project.id, change, command.via));
  const moved = command.changes
    .filter((change) => change.ref.startsWith(BRANCH_PREFIX) && change.new_sha !== null)
    .map((change) => ({ branch: change.ref.slice(BRANCH_PREFIX.length), sha: change.new_sha! }));
  return E.right([
    ...events,
    ...versionEvents(state, project.id, moved, command.versions ?? [], at, 0, issued.actor.userId),
    ...defaultBranchCreatedEvents(state, project, repository, command.changes, at),
  ]);
};
