/**
 * Pipelines (lib/api/ci/pipelines.rb, 14.7): list, create from a ref (its commit read from git), get, cancel, retry,
 * delete. There is no CI configuration and no job runner: a pipeline is created `created` and stays so until it is
 * canceled (a retry makes it `pending`). `authenticate_non_get!`: reads are open where the project is.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  branchNames,
  canOnProject,
  canReadPipelineVariables,
  canReadPipelines,
  defaultBranchOf,
  findPipeline,
  findRepository,
  findUser,
  forbidden,
  newestPipelineAt,
  pipelinesOfProject,
  RECORD_NOT_FOUND,
  tagNames,
  unambiguousBranchSha,
  type DomainError,
  type Pipeline,
  type PipelineVariable,
  type Project,
  type RefFact,
  type State,
} from '@forgefold/core';
import { ApiError, arraySource, checkUnmodifiedSince, created, noContent, ok, paginate, route, type AnyRouteDef, type Schema } from '../../http/index.js';
import { presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { emptyTestReportSummaryEntity, pipelineBasicEntity, pipelineEntity } from './entities.js';
import { bridgesParams, createParams, jobsParams, latestParams, listParams, pipelineIdParams } from './params.js';

const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);

/** `Ci::Pipeline.dangling_sources`: what `project.ci_pipelines` leaves out. */
const DANGLING = new Set(['webide', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation']);

/**
 * `Project#latest_pipeline(ref)`: the ref (the default branch when blank) resolves to a commit, and the newest CI
 * pipeline of that ref at that commit is the answer; none when the ref names no commit or none was run there.
 */
const latestPipeline = async (deps: ApiDeps, state: State, project: Project, given: string | null | undefined): Promise<Pipeline | null> => {
  const repository = findRepository(state.repositories, project.id);
  const ref = given ? given : repository ? defaultBranchOf(repository) : null;
  if (ref === null) return null;
  // A branch the log records is read from the state; any other revision from git.
  let sha = repository ? unambiguousBranchSha(repository, ref) : null;
  if (sha === null) {
    const commit = await deps.repositories.open(project.id).findCommit(ref);
    if (E.isLeft(commit)) return null;
    sha = commit.right.id;
  }
  return newestPipelineAt(state.pipelines, project.id, ref, sha, (pipeline) => !DANGLING.has(pipeline.source));
};

/** `user_project.all_pipelines.find(params[:pipeline_id])`. */
const pipelineOfRoute = (ctx: Ctx, state: State): E.Either<DomainError, { project: Project; pipeline: Pipeline }> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const pipeline = findPipeline(state.pipelines, project.right.id, Number(ctx.routeParams['pipeline_id']));
  return pipeline ? E.right({ project: project.right, pipeline }) : E.left(RECORD_NOT_FOUND);
};

/** The route's pipeline (404 first), then `read_pipeline` on its project (403): the order of `authorize! …, pipeline`. */
const readablePipelineOfRoute = (ctx: Ctx, state: State): E.Either<DomainError, Pipeline> => {
  const found = pipelineOfRoute(ctx, state);
  if (E.isLeft(found)) return found;
  return canReadPipelines(state, viewerId(ctx), found.right.project) ? E.right(found.right.pipeline) : E.left(forbidden());
};

/** `variables`: an array of `{key, value, variable_type}` hashes (anything else is invalid). */
const variablesOf = (raw: unknown): PipelineVariable[] => {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw ApiError.error(400, 'variables is invalid');
  return raw.map((item: unknown) => {
    const hash = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));
    return { key: text(hash['key']), value: text(hash['value']), variable_type: hash['variable_type'] === 'file' ? 'file' : 'env_var' };
  });
};

/** The ref as git has it: a branch (first) or a tag of that name, and its commit. */
const refFact = async (deps: ApiDeps, projectId: number, ref: string): Promise<RefFact> => {
  const git = deps.repositories.open(projectId);
  const [branch, tag] = await Promise.all([git.findBranch(ref), git.findTag(ref)]);
  const branchSha = E.isRight(branch) ? branch.right.commit.id : null;
  const tagSha = E.isRight(tag) ? (tag.right.commit?.id ?? null) : null;
  return { branch: E.isRight(branch), tag: E.isRight(tag), sha: branchSha ?? tagSha };
};

/** `PipelinesFinder`: scope, status, ref, sha, username, source, updated_*, then the order. */
const listed = (state: State, project: Project, params: (typeof listParams)['_A']): Pipeline[] => {
  let rows = pipelinesOfProject(state.pipelines, project.id);
  if (params.scope === 'running' || params.scope === 'pending') rows = rows.filter((pipeline) => pipeline.status === params.scope);
  if (params.scope === 'finished') rows = rows.filter((pipeline) => FINISHED.has(pipeline.status));
  if (params.scope === 'branches' || params.scope === 'tags') {
    const repository = findRepository(state.repositories, project.id);
    const names = new Set(repository ? (params.scope === 'branches' ? branchNames(repository) : tagNames(repository)) : []);
    const latest = new Map<string, number>();
    for (const pipeline of rows) if (names.has(pipeline.ref)) latest.set(pipeline.ref, pipeline.id);
    const ids = new Set(latest.values());
    rows = rows.filter((pipeline) => ids.has(pipeline.id));
  }
  if (params.status) rows = rows.filter((pipeline) => pipeline.status === params.status);
  if (params.ref) rows = rows.filter((pipeline) => pipeline.ref === params.ref);
  if (params.sha) rows = rows.filter((pipeline) => pipeline.sha === params.sha);
  if (params.username) rows = rows.filter((pipeline) => pipeline.user_id !== null && findUser(state.users, pipeline.user_id)?.username === params.username);
  if (params.source) rows = rows.filter((pipeline) => pipeline.source === params.source);
  // No pipeline has configuration errors here: `yaml_errors=true` finds none.
  if (params.yaml_errors === true) rows = [];
  if (params.updated_before) rows = rows.filter((pipeline) => Date.parse(pipeline.updated_at) < Date.parse(params.updated_before!));
  if (params.updated_after) rows = rows.filter((pipeline) => Date.parse(pipeline.updated_at) > Date.parse(params.updated_after!));
  const key = params.order_by ?? 'id';
  const value = (pipeline: Pipeline): string | number => (key === 'user_id' ? (pipeline.user_id ?? -1) : key === 'id' ? pipeline.id : pipeline[key]);
  const direction = params.sort === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    return (x < y ? -1 : x > y ? 1 : a.id - b.id) * direction;
  });
};

/**
 * `GET …/pipelines/:pipeline_id/jobs` and `/bridges`: `authorize!` on the project (jobs `read_pipeline`, bridges
 * `read_build`, both `canReadPipelines` here since builds are public), then the pipeline (404), then `JobsFinder`.
 * No job ever runs here, so the list is empty, with its pagination headers.
 */
const noJobsRoute = <P extends { readonly pipeline_id: number }>(deps: ApiDeps, kind: 'jobs' | 'bridges', params: Schema<P>): AnyRouteDef =>
  route({
    method: 'GET',
    path: `/projects/:id/pipelines/:pipeline_id/${kind}`,
    auth: 'optional',
    params,
    handler: (ctx) => {
      const state = deps.app.state;
      const project = projectOfRoute(ctx, state);
      if (E.isLeft(project)) return project.left;
      if (!canReadPipelines(state, viewerId(ctx), project.right)) return forbidden();
      if (!findPipeline(state.pipelines, project.right.id, ctx.params.pipeline_id)) return RECORD_NOT_FOUND;
      return paginate(ctx, arraySource<never>([]), { map: (job) => job });
    },
  });

export const pipelineRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  listRoute(deps, {
    path: '/projects/:id/pipelines',
    auth: 'optional',
    params: listParams,
    find: projectOfRoute,
    // `authorize! :read_pipeline` and `:read_build`.
    authorize: (ctx, state, project) => (canReadPipelines(state, viewerId(ctx), project) ? null : forbidden()),
    rows: (ctx, state, project) => listed(state, project, ctx.params),
    present: pipelineBasicEntity,
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/pipeline',
    params: createParams,
    find: projectOfRoute,
    authorize: (ctx, state, project) => (canOnProject(state, viewerId(ctx), 'create_pipeline', project) ? null : forbidden()),
    command: async (ctx, project) => ({
      type: 'CreatePipeline',
      project_id: project.id,
      ref: ctx.params.ref ?? '',
      variables: variablesOf(ctx.params.variables),
      fact: await refFact(deps, project.id, ctx.params.ref ?? ''),
    }),
    present: (done, ctx) => {
      const event = done.events.find((candidate) => candidate.type === 'PipelineCreated')!;
      const pipeline = findPipeline(done.state.pipelines, (event.data as { project_id: number }).project_id, (event.data as { id: number }).id)!;
      return created(pipelineEntity(pipeline, presentContext(deps, ctx, done.state)));
    },
  }),
  // Declared before `:pipeline_id`, which would take `latest` for an id (400 "pipeline_id is invalid").
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/latest',
    auth: 'optional',
    params: latestParams,
    handler: async (ctx) => {
      const project = projectOfRoute(ctx, deps.app.state);
      if (E.isLeft(project)) return project.left;
      const latest = await latestPipeline(deps, deps.app.state, project.right, ctx.params.ref);
      // `authorize! :read_pipeline, latest_pipeline`: no pipeline is a subject nobody may read (403).
      const state = deps.app.state;
      const current = latest ? findPipeline(state.pipelines, project.right.id, latest.id) : undefined;
      if (!current || !canReadPipelines(state, viewerId(ctx), project.right)) return forbidden();
      return ok(pipelineEntity(current, presentContext(deps, ctx, state)));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id',
    auth: 'optional',
    params: pipelineIdParams,
    handler: (ctx) => {
      const state = deps.app.state;
      const found = readablePipelineOfRoute(ctx, state);
      return E.isLeft(found) ? found.left : ok(pipelineEntity(found.right, presentContext(deps, ctx, state)));
    },
  }),
  noJobsRoute(deps, 'jobs', jobsParams),
  noJobsRoute(deps, 'bridges', bridgesParams),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/test_report',
    auth: 'optional',
    params: pipelineIdParams,
    handler: (ctx) => {
      // `authorize! :read_build, pipeline`; `TestReportEntity` of a pipeline without jobs: no suite, all counts 0.
      const found = readablePipelineOfRoute(ctx, deps.app.state);
      return E.isLeft(found) ? found.left : ok({ total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, test_suites: [] });
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/test_report_summary',
    auth: 'optional',
    params: pipelineIdParams,
    handler: (ctx) => {
      // `authorize! :read_build, pipeline`, as the test report.
      const found = readablePipelineOfRoute(ctx, deps.app.state);
      return E.isLeft(found) ? found.left : ok(emptyTestReportSummaryEntity());
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/pipelines/:pipeline_id/variables',
    auth: 'optional',
    params: pipelineIdParams,
    handler: (ctx) => {
      const state = deps.app.state;
      const found = pipelineOfRoute(ctx, state);
      if (E.isLeft(found)) return found.left;
      const { project, pipeline } = found.right;
      // `authorize! :read_pipeline_variable, pipeline`; `Entities::Ci::Variable` of each.
      if (!canReadPipelineVariables(state, viewerId(ctx), project, pipeline)) return forbidden();
      return ok(pipeline.variables.map(({ variable_type, key, value }) => ({ variable_type, key, value })));
    },
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/pipelines/:pipeline_id/cancel',
    params: pipelineIdParams,
    find: pipelineOfRoute,
    command: (_ctx, { project, pipeline }) => ({ type: 'CancelPipeline', project_id: project.id, pipeline_id: pipeline.id }),
    // `status 200` (a POST that answers 200).
    present: (done, ctx, { project, pipeline }) => ok(pipelineEntity(findPipeline(done.state.pipelines, project.id, pipeline.id)!, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/pipelines/:pipeline_id/retry',
    params: pipelineIdParams,
    find: pipelineOfRoute,
    command: (_ctx, { project, pipeline }) => ({ type: 'RetryPipeline', project_id: project.id, pipeline_id: pipeline.id }),
    present: (done, ctx, { project, pipeline }) => created(pipelineEntity(findPipeline(done.state.pipelines, project.id, pipeline.id)!, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/projects/:id/pipelines/:pipeline_id',
    params: pipelineIdParams,
    find: pipelineOfRoute,
    authorize: (ctx, state, { project }) => (canOnProject(state, viewerId(ctx), 'destroy_pipeline', project) ? null : forbidden()),
    command: (ctx, { project, pipeline }) => {
      // `destroy_conditionally!`: If-Unmodified-Since before the pipeline's last change is 412.
      checkUnmodifiedSince(ctx.request.headers, pipeline.updated_at);
      return { type: 'DeletePipeline', project_id: project.id, pipeline_id: pipeline.id };
    },
    present: () => noContent(),
  }),
];
