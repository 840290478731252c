/** Pipeline events: the audit trail of pipelines (who created one, from which ref and commit, how; cancels, retries, deletions). */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `pipelines-${data.project_id}`;

export const variableCodec = t.type({ key: t.string, value: t.string, variable_type: t.keyof({ env_var: null, file: null }) });

const source = t.keyof({
  push: null,
  web: null,
  trigger: null,
  schedule: null,
  api: null,
  external: null,
  pipeline: null,
  chat: null,
  merge_request_event: null,
  external_pull_request_event: null,
  parent_pipeline: null,
  ondemand_dast_scan: null,
  ondemand_dast_validation: null,
});

export const pipelineEvents = defineEvents({
  /** `user_id`: who the pipeline runs as (for a scheduled run, the schedule's owner; the actor is then the system). */
  PipelineCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      iid: t.number,
      sha: t.string,
      before_sha: t.string,
      ref: t.string,
      tag: t.boolean,
      source,
      status: t.keyof({ created: null, pending: null }),
      user_id: nullable(t.number),
      pipeline_schedule_id: nullable(t.number),
      variables: t.array(variableCodec),
      created_at: t.string,
    }),
  },
  PipelineCanceled: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, at: t.string }) },
  /** Its canceled or failed jobs run again: the pipeline is pending. */
  PipelineRetried: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, at: t.string }) },
  PipelineDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
});

export type PipelineEvent = EventsOf<typeof pipelineEvents>;
