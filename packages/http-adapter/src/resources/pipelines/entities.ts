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

/**
 * `TestReportSummaryEntity` of `pipeline.test_report_summary` (`Gitlab::Ci::Reports::TestReportSummary` over the
 * pipeline's latest builds' `Ci::BuildReportResult`s): `total` is `TestSuiteSummary#to_h` of all results (sums of
 * none are 0, `suite_error` the first one given, none), `test_suites` one `TestSuiteSummaryEntity` per tests name.
 * No job ever runs here, so no build has report results: all counts 0 and no suite.
 */
export const emptyTestReportSummaryEntity = () => ({
  total: { time: 0, count: 0, success: 0, failed: 0, skipped: 0, error: 0, suite_error: null },
  test_suites: [],
});
