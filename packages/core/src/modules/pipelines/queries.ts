/** Reads over the pipelines projection, and the ref rules pipelines and schedules share. */
import { tableGet, tableIds } from '../../kernel/table.js';
import { canOnProject, canOnVisibleProject, meetsRefAccessLevel, type AccessView } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import { branchRef, tagRef, type Repository } from '../repositories/projection.js';
import { findRepository, matchingProtectedBranches, matchingProtectedTags, refValue } from '../repositories/queries.js';
import type { RefFact } from './commands.js';
import { tagCommitKey, type Pipeline, type PipelinesSlice, type PipelinesView } from './projection.js';

export const findPipeline = (pipelines: PipelinesSlice, projectId: number, id: number): Pipeline | undefined => {
  const pipeline = tableGet(pipelines.byId, id);
  return pipeline && pipeline.project_id === projectId ? pipeline : undefined;
};

/** A project's pipelines, by ascending id. */
export const pipelinesOfProject = (pipelines: PipelinesSlice, projectId: number): Pipeline[] => {
  const project = tableGet(pipelines.byProject, projectId);
  if (!project) return [];
  return [...tableIds(project.ids)].map((id) => tableGet(pipelines.byId, id)!);
};

/** `last_pipeline` of a schedule: its newest pipeline. */
export const lastPipelineOfSchedule = (pipelines: PipelinesSlice, scheduleId: number): Pipeline | null => {
  const id = tableGet(pipelines.lastOfSchedule, scheduleId);
  return id === undefined ? null : (tableGet(pipelines.byId, id) ?? null);
};

/** The ref as the log knows it: a branch and/or a tag of that name, and the commit (the branch's, else the tag's). */
export const refFactOf = (state: Pick<PipelinesView, 'repositories' | 'pipelines'>, projectId: number, ref: string): RefFact => {
  const repository = findRepository(state.repositories, projectId);
  const branchSha = repository ? refValue(repository, branchRef(ref)) : null;
  const tagTarget = repository ? refValue(repository, tagRef(ref)) : null;
  const tagSha = tagTarget === null ? null : (tableGet(state.pipelines.tagCommits, tagCommitKey(projectId, ref)) ?? null);
  return { branch: branchSha !== null, tag: tagTarget !== null, sha: branchSha ?? tagSha };
};

/** `UserAccess#can_update_branch?`: may push to, or merge into, the branch. */
const canUpdateBranch = (state: AccessView, userId: number, project: Project, repository: Repository, name: string): boolean => {
  const rules = matchingProtectedBranches(repository, name);
  if (rules.length === 0) return canOnProject(state, userId, 'push_code', project);
  const allow = (levels: readonly { access_level: number }[]) => levels.every((level) => meetsRefAccessLevel(state, userId, project, level.access_level));
  return allow(rules.flatMap((rule) => rule.push_access_levels)) || allow(rules.flatMap((rule) => rule.merge_access_levels));
};

/** `UserAccess#can_create_tag?`. */
const canCreateTagNamed = (state: AccessView, userId: number, project: Project, repository: Repository, name: string): boolean => {
  const rules = matchingProtectedTags(repository, name);
  if (rules.length === 0) return canOnProject(state, userId, 'push_code', project);
  return rules.flatMap((rule) => rule.create_access_levels).every((level) => meetsRefAccessLevel(state, userId, project, level.access_level));
};

/**
 * `ref_protected?` of the pipeline and schedule policies: a tag the user may not create, or a branch they may
 * neither push to nor merge into (the system is never refused).
 */
export const refProtectedFor = (state: Pick<PipelinesView, keyof AccessView | 'repositories'>, userId: number | null, project: Project, ref: string, tag: boolean): boolean => {
  if (userId === null) return false;
  const repository = findRepository(state.repositories, project.id);
  if (!repository) return false;
  return tag ? !canCreateTagNamed(state, userId, project, repository, ref) : !canUpdateBranch(state, userId, project, repository, ref);
};

/**
 * `read_pipeline`: members from Guest up (`public_builds & guest_access`); on a public or internal project whoever
 * sees it (`public_access`). Builds are public by default (`public_builds`) and there is no setting of it here.
 */
export const canReadPipelines = (state: AccessView, userId: number | null, project: Project): boolean => canOnVisibleProject(state, userId, 'read_pipeline', project);

/**
 * `read_pipeline_variable` (PipelinePolicy): Maintainers (`admin_pipeline`), or whoever the pipeline runs as when
 * they may `update_pipeline` on it (Developers, unless its ref is protected from them).
 */
export const canReadPipelineVariables = (state: Pick<PipelinesView, keyof AccessView | 'repositories'>, userId: number | null, project: Project, pipeline: Pipeline): boolean => {
  if (userId === null) return false;
  if (canOnProject(state, userId, 'admin_pipeline', project)) return true;
  return pipeline.user_id === userId && canOnProject(state, userId, 'update_pipeline', project) && !refProtectedFor(state, userId, project, pipeline.ref, pipeline.tag);
};

/**
 * `MergeRequest#head_pipeline`: the newest branch pipeline of the source branch at the merge request's head sha
 * (`UpdateHeadPipelineForMergeRequestWorker` points it at each such pipeline as it is created); none without a head.
 */
export const headPipelineOf = (pipelines: PipelinesSlice, projectId: number, branch: string, sha: string | null): Pipeline | null =>
  sha === null ? null : newestPipelineAt(pipelines, projectId, branch, sha, (pipeline) => !pipeline.tag);

/** The newest pipeline of `ref` at `sha` that `admits` keeps (`newest_first(ref:, sha:)` over a scope), or null. */
export const newestPipelineAt = (pipelines: PipelinesSlice, projectId: number, ref: string, sha: string, admits: (pipeline: Pipeline) => boolean): Pipeline | null => {
  let newest: Pipeline | null = null;
  for (const pipeline of pipelinesOfProject(pipelines, projectId)) {
    if (pipeline.ref === ref && pipeline.sha === sha && admits(pipeline) && (newest === null || pipeline.id > newest.id)) newest = pipeline;
  }
  return newest;
};
