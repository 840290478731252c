/** The pipelines module's evolve: pipelines by project and schedule; tags' commits and projects' deletions followed. */
import { emptyTable, tableDelete, tableGet, tableIds, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { RepositoryEvent } from '../repositories/events.js';
import type { PipelineEvent } from './events.js';
import { tagCommitKey, type PipelinesSlice } from './projection.js';

export type PipelinesDraft = Writable<{ readonly pipelines: PipelinesSlice }, 'pipelines'>;

/** The newest pipeline of a schedule other than `except` (after a deletion): a walk over the project's pipelines. */
const newestOfSchedule = (state: PipelinesDraft, projectId: number, scheduleId: number): number | undefined => {
  const project = tableGet(state.pipelines.byProject, projectId);
  let newest: number | undefined;
  if (project) for (const id of tableIds(project.ids)) if (tableGet(state.pipelines.byId, id)?.pipeline_schedule_id === scheduleId) newest = id;
  return newest;
};

export const evolve = (state: PipelinesDraft, event: PipelineEvent): void => {
  const pipelines = state.pipelines;
  switch (event.type) {
    case 'PipelineCreated': {
      const data = event.data;
      tableSet(pipelines.byId, data.id, { ...data, updated_at: data.created_at, finished_at: null });
      let project = tableGet(pipelines.byProject, data.project_id);
      if (!project) {
        tableSet(pipelines.byProject, data.project_id, { ids: emptyTable<1>(), iid: 0 });
        project = tableGet(pipelines.byProject, data.project_id)!;
      }
      tableSet(project.ids, data.id, 1);
      if (data.iid > project.iid) project.iid = data.iid;
      if (data.pipeline_schedule_id !== null) tableSet(pipelines.lastOfSchedule, data.pipeline_schedule_id, data.id);
      if (data.id > pipelines.sequence) pipelines.sequence = data.id;
      return;
    }
    case 'PipelineCanceled': {
      const pipeline = tableGet(pipelines.byId, event.data.id);
      if (!pipeline) return;
      pipeline.status = 'canceled';
      pipeline.updated_at = event.data.at;
      pipeline.finished_at = event.data.at;
      return;
    }
    case 'PipelineRetried': {
      const pipeline = tableGet(pipelines.byId, event.data.id);
      if (!pipeline) return;
      pipeline.status = 'pending';
      pipeline.updated_at = event.data.at;
      pipeline.finished_at = null;
      return;
    }
    case 'PipelineDeleted': {
      const pipeline = tableGet(pipelines.byId, event.data.id);
      if (!pipeline) return;
      tableDelete(pipelines.byId, pipeline.id);
      const project = tableGet(pipelines.byProject, pipeline.project_id);
      if (project) tableDelete(project.ids, pipeline.id);
      const scheduleId = pipeline.pipeline_schedule_id;
      if (scheduleId !== null && tableGet(pipelines.lastOfSchedule, scheduleId) === pipeline.id) {
        const newest = newestOfSchedule(state, pipeline.project_id, scheduleId);
        if (newest === undefined) tableDelete(pipelines.lastOfSchedule, scheduleId);
        else tableSet(pipelines.lastOfSchedule, scheduleId, newest);
      }
      return;
    }
  }
};

type TagEvent = Extract<RepositoryEvent, { type: 'TagCreated' | 'TagUpdated' | 'TagDeleted' }>;

const onTag = (state: PipelinesDraft, event: TagEvent): void => {
  const key = tagCommitKey(event.data.project_id, event.data.name);
  if (event.type === 'TagDeleted' || event.data.commit_sha === null) tableDelete(state.pipelines.tagCommits, key);
  else tableSet(state.pipelines.tagCommits, key, event.data.commit_sha);
};

/** A deleted project's pipelines go with it. */
const onProjectDeleted = (state: PipelinesDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void => {
  const project = tableGet(state.pipelines.byProject, event.data.id);
  if (!project) return;
  for (const id of [...tableIds(project.ids)]) {
    const scheduleId = tableGet(state.pipelines.byId, id)?.pipeline_schedule_id;
    if (scheduleId !== undefined && scheduleId !== null) tableDelete(state.pipelines.lastOfSchedule, scheduleId);
    tableDelete(state.pipelines.byId, id);
  }
  tableDelete(state.pipelines.byProject, event.data.id);
};

export type PipelinesFollowed = TagEvent | Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

export const follows = { TagCreated: onTag, TagUpdated: onTag, TagDeleted: onTag, ProjectDeleted: onProjectDeleted };
