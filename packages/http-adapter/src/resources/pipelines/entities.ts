/** `Entities::Ci::PipelineBasic` and `Entities::Ci::Pipeline` (lib/api/entities/ci, 14.7). */
import { canReadPipelines, findProject, findUser, type Pipeline } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';

const pipelineWebUrl = (pipeline: Pipeline, ctx: PresentContext): string => {
  const project = findProject(ctx.state.projects, pipeline.project_id);
  return `${ctx.baseUrl}/${project?.path_with_namespace ?? ''}/-/pipelines/${pipeline.id}`;
};

export const pipelineBasicEntity = (pipeline: Pipeline, ctx: PresentContext) => ({
  id: pipeline.id,
  iid: pipeline.iid,
  project_id: pipeline.project_id,
  sha: pipeline.sha,
  ref: pipeline.ref,
  status: pipeline.status,
  source: pipeline.source,
  created_at: pipeline.created_at,
  updated_at: pipeline.updated_at,
  web_url: pipelineWebUrl(pipeline, ctx),
});

/** `Gitlab::Ci::Status` of the pipeline's own status (no job ever runs, so the status is the stored one). */
const detailedStatus = (pipeline: Pipeline, ctx: PresentContext) => {
  const project = findProject(ctx.state.projects, pipeline.project_id);
  const status = pipeline.status;
  return {
    icon: `status_${status}`,
    text: status,
    label: status,
    group: status,
    tooltip: status,
    has_details: project ? canReadPipelines(ctx.state, ctx.viewerId, project) : false,
    details_path: `/${project?.path_with_namespace ?? ''}/-/pipelines/${pipeline.id}`,
    illustration: null,
    favicon: `/assets/ci_favicons/favicon_status_${status}.png`,
  };
};

export const pipelineEntity = (pipeline: Pipeline, ctx: PresentContext) => {
  const user = pipeline.user_id === null ? undefined : findUser(ctx.state.users, pipeline.user_id);
  return {
    ...pipelineBasicEntity(pipeline, ctx),
    before_sha: pipeline.before_sha,
    tag: pipeline.tag,
    yaml_errors: null,
    user: user ? userBasic(user, ctx) : null,
    started_at: null,
    finished_at: pipeline.finished_at,
    committed_at: null,
    duration: null,
    queued_duration: null,
    coverage: null,
    detailed_status: detailedStatus(pipeline, ctx),
  };
};
