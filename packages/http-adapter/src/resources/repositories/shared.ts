/** What the repository routes share: the project lookup with its ability check, and git failures as replies. */
import * as E from 'fp-ts/lib/Either.js';
import { canRepository, findRepository, forbidden, notFound, refMoveRefusal, type DomainError, type Project, type RefMove, type RepositoryAbility, type State } from '@forgefold/core';
import type { GitError, GitResult } from '@forgefold/git';
import { ApiError } from '../../http/index.js';
import { findReadableProject, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { refusalOf } from '../../app/repositories.js';

/**
 * `user_project` + `authorize! ability`: a project the caller cannot read is "404 Project Not Found"; one they
 * may read without the ability is 403; a project without a repository record is "404 Not Found".
 */
export const findRepositoryProject = (state: State, ctx: Ctx, ability: RepositoryAbility): E.Either<DomainError, Project> => {
  const found = findReadableProject(state, ctx, String(ctx.routeParams['id']));
  if (E.isLeft(found)) return found;
  if (!canRepository(state, viewerId(ctx), found.right, ability)) return E.left(forbidden());
  if (!findRepository(state.repositories, found.right.id)) return E.left(notFound());
  return found;
};

/** A `before` hook: the lookup and the ability win over a 400 from parameter validation. */
export const requireRepositoryAbility =
  (deps: ApiDeps, ability: RepositoryAbility) =>
  (ctx: Ctx): DomainError | undefined => {
    const found = findRepositoryProject(deps.app.state, ctx, ability);
    return E.isLeft(found) ? found.left : undefined;
  };

/** The project a `before` hook already found (it cannot be missing: the hook ran against the same state or older). */
export const projectOf = (deps: ApiDeps, ctx: Ctx, ability: RepositoryAbility): Project => {
  const found = findRepositoryProject(deps.app.state, ctx, ability);
  if (E.isLeft(found)) throw ApiError.domain(found.left);
  return found.right;
};

/**
 * A git failure as the platform answers it: the services' refusals are 400 `{"message": …}` (`render_api_error!`),
 * a missing ref or path 404 with the engine's text (or `notFoundText`), a refused record its domain error;
 * anything else is a server error.
 */
export const gitFailure = (error: GitError, notFoundText?: string): ApiError => {
  const refused = refusalOf(error);
  if (refused) return ApiError.domain(refused);
  switch (error._tag) {
    case 'RefNotFound':
    case 'PathNotFound':
      return ApiError.message(404, notFoundText ?? error.message);
    case 'RepositoryNotFound':
      return ApiError.message(404, '404 Not Found');
    case 'RevisionNotFound':
      // A lookup (`user_project.commit(sha)`) misses with the route's 404; a write's bad start point is a 400.
      return notFoundText ? ApiError.message(404, notFoundText) : ApiError.message(400, error.message);
    case 'InvalidRefName':
    case 'RefExists':
    case 'RefChanged':
    case 'IndexError':
    case 'CommitRefused':
    case 'InvalidInput':
    case 'MergeConflict':
    case 'NotFastForward':
      return ApiError.message(400, error.message);
    case 'RecordFailed':
    case 'RepositoryExists':
    case 'GitFailed':
      throw new Error(`git: ${error.message}`);
  }
};

/** The pre-receive checks of a move from the API, before git is asked: a refusal is 400 with the check's text. */
export const precheck = (deps: ApiDeps, ctx: Ctx, project: Project, move: RefMove): void => {
  const state = deps.app.state;
  const repository = findRepository(state.repositories, project.id);
  const refusal = repository ? refMoveRefusal(state, viewerId(ctx), project, repository, move, 'api') : null;
  if (refusal) throw ApiError.message(400, refusal);
};

/** The engine's answer, or the reply its failure deserves. */
export const must = async <A>(result: GitResult<A>, notFoundText?: string): Promise<A> => {
  const answer = await result;
  if (E.isLeft(answer)) throw gitFailure(answer.left, notFoundText);
  return answer.right;
};

/**
 * The `file_path: true` validator (`API::Validations::Validators::FilePath`): `Gitlab::Utils.check_path_traversal!`
 * (`.` or `..` alone, a `..` segment between slashes or backslashes, a line break) and `check_allowed_absolute_path!` with no
 * allowed paths (an absolute path); a NUL cannot reach git either.
 */
const TRAVERSAL = /(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/;
export const checkFilePath = (path: string): string => {
  if (TRAVERSAL.test(path) || path.startsWith('/') || path.includes('\0')) throw ApiError.error(400, 'file_path should be a valid file path');
  return path;
};
