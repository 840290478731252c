/**
 * The platform's repository entities shared by several resources (lib/api/entities): Commit, CommitDetail, Diff,
 * TreeObject. Git data comes from the engine with the platform's field names.
 */
import { canReadPipelines, pipelinesOfProject, type Project } from '@forgefold/core';
import type { Commit, CommitStats, DiffFile, TreeEntry } from '@forgefold/git';
import type { PresentContext } from '../context.js';
import { pipelineBasicEntity } from '../pipelines/entities.js';

/** `Commit#title`: the first line; from 100 characters on, cut at a word to 80 and an ellipsis (Rails `truncate(81)`). */
export const commitTitle = (title: string): string => {
  if (title.length < 100) return title;
  const stop = title.lastIndexOf(' ', 80);
  return `${title.slice(0, stop === -1 ? 80 : stop)}…`;
};

export const projectWebUrl = (project: Project, ctx: PresentContext): string => `${ctx.baseUrl}/${project.path_with_namespace}`;

/** `Entities::Commit`; `trailers` are `{}` unless the list was asked for them (`trailers=true`). */
export const commitEntity = (commit: Commit, project: Project, ctx: PresentContext, trailers: Readonly<Record<string, string>> = {}) => ({
  id: commit.id,
  short_id: commit.short_id,
  created_at: commit.committed_date,
  parent_ids: commit.parent_ids,
  title: commitTitle(commit.title),
  message: commit.message,
  author_name: commit.author_name,
  author_email: commit.author_email,
  authored_date: commit.authored_date,
  committer_name: commit.committer_name,
  committer_email: commit.committer_email,
  committed_date: commit.committed_date,
  trailers,
  web_url: `${projectWebUrl(project, ctx)}/-/commit/${commit.id}`,
});

/**
 * `Entities::CommitDetail`: the commit, its stats (unless `stats=false`), and its pipeline fields: `status` is the
 * status of the newest pipeline for the commit (no job ever runs, so the composite of its jobs is the pipeline's
 * own), `last_pipeline` that pipeline for whoever may read it (`can_read_pipeline?`; null when the route passes
 * no user, as `POST …/commits` does).
 */
export const commitDetailEntity = (commit: Commit, stats: CommitStats | null, project: Project, ctx: PresentContext, options: { readonly withUser?: boolean } = {}) => {
  const pipeline = pipelinesOfProject(ctx.state.pipelines, project.id).findLast((candidate) => candidate.sha === commit.id) ?? null;
  const readable = pipeline !== null && options.withUser === true && canReadPipelines(ctx.state, ctx.viewerId, project);
  return {
    ...commitEntity(commit, project, ctx),
    ...(stats ? { stats } : {}),
    status: pipeline?.status ?? null,
    project_id: project.id,
    last_pipeline: readable ? pipelineBasicEntity(pipeline, ctx) : null,
  };
};

/** `Entities::Diff`. */
export const diffEntity = (diff: DiffFile) => ({
  old_path: diff.old_path,
  new_path: diff.new_path,
  a_mode: diff.a_mode,
  b_mode: diff.b_mode,
  new_file: diff.new_file,
  renamed_file: diff.renamed_file,
  deleted_file: diff.deleted_file,
  diff: diff.diff,
});

/** `Entities::TreeObject`. */
export const treeEntity = (entry: TreeEntry) => ({ id: entry.id, name: entry.name, type: entry.type, path: entry.path, mode: entry.mode });

