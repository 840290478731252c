/**
 * Deployment and environment events: the audit trail of what was deployed where, when and by whom (the event's
 * `actorId` and `deployment.user_id`). `forgefold audit deployments` reads them.
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `deployments-${data.project_id}`;

const status = t.keyof({ created: null, running: null, success: null, failed: null, canceled: null, skipped: null });
const statusEvent = t.keyof({ run: null, succeed: null, drop: null, cancel: null, skip: null });

export const deploymentEvents = defineEvents({
  EnvironmentCreated: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, id: t.number, name: t.string, slug: t.string, external_url: nullable(t.string), created_at: t.string }),
  },
  /** `PUT …/environments/:id`: the fields given (a rename keeps the slug, as the platform does). */
  EnvironmentUpdated: {
    version: 1,
    stream,
    codec: t.intersection([t.type({ project_id: t.number, id: t.number, updated_at: t.string }), t.partial({ name: t.string, external_url: nullable(t.string) })]),
  },
  EnvironmentStopped: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, at: t.string }) },
  /** A successful deployment to a stopped environment starts it again (`UpdateEnvironmentService`: `start`). */
  EnvironmentStarted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, at: t.string }) },
  EnvironmentDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
  /**
   * `DELETE …/environments/review_apps` (`Environment.schedule_to_delete`): a stopped review app is to be deleted at
   * `auto_delete_at` (a week on); `Environments::AutoDeleteCronWorker` deletes it then if it is still stopped.
   */
  EnvironmentDeletionScheduled: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, auto_delete_at: t.string }) },
  DeploymentCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      iid: t.number,
      environment_id: t.number,
      ref: t.string,
      tag: t.boolean,
      sha: t.string,
      status,
      user_id: nullable(t.number),
      created_at: t.string,
    }),
  },
  /** A status change through the machine: `event` is the transition that fired. */
  DeploymentStatusChanged: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, id: t.number, from: status, to: status, event: statusEvent, at: t.string }),
  },
});

export type DeploymentEvent = EventsOf<typeof deploymentEvents>;
