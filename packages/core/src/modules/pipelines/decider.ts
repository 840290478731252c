/**
 * Pipeline decisions (`Ci::CreatePipelineService` for the API, without CI configuration or jobs; cancel, retry,
 * destroy). Failures of creation are the service's errors on `base`, as `render_validation_error!` shows them.
 */
import * as E from 'fp-ts/lib/Either.js';
import { forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type Issued, type IssuedAs } from '../../kernel/decider.js';
import { authorizeProject, canOnProject } from '../access/abilities.js';
import { RECORD_NOT_FOUND } from '../shared/errors.js';
import { findProject } from '../projects/queries.js';
import type { Project } from '../projects/projection.js';
import type { PipelineCommand } from './commands.js';
import type { PipelineEvent } from './events.js';
import { createPipelines } from './builders.js';
import type { Pipeline, PipelineStatus, PipelineVariable, PipelinesView } from './projection.js';
import { findPipeline, refProtectedFor } from './queries.js';
import { isRubyBlank } from '../shared/validation.js';

type State = PipelinesView;
type Result = E.Either<DomainError, readonly PipelineEvent[]>;

const requireProject = (state: State, id: number): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, id);
  return project ? E.right(project) : E.left(notFound('Project'));
};

const base = (message: string): DomainError => validation({ base: [message] });

/** `HasVariable` on each variable, as `save!` reports it ("Failed to persist the pipeline: Validation failed: …"). */
const variableErrors = (variables: readonly PipelineVariable[]): string[] => {
  const errors: string[] = [];
  for (const variable of variables) {
    if (isRubyBlank(variable.key)) errors.push("Variables key can't be blank");
    else if (variable.key.length > 255) errors.push('Variables key is too long (maximum is 255 characters)');
    else if (!/^[a-zA-Z0-9_]+$/.test(variable.key)) errors.push("Variables key can contain only letters, digits and '_'.");
  }
  return [...new Set(errors)];
};

const decideCreate = (issued: IssuedAs<PipelineCommand, 'CreatePipeline'>, state: State): Result => {
  const { project_id, ref, variables, fact } = issued.command;
  const userId = issued.actor.userId;
  const found = requireProject(state, project_id);
  if (E.isLeft(found)) return found;
  const project = found.right;
  if (userId !== null && !canOnProject(state, userId, 'create_pipeline', project)) return E.left(base('Insufficient permissions to create a new pipeline'));
  // Chain::Validate::Abilities, then Chain::Validate::Repository.
  if ((fact.branch || fact.tag) && refProtectedFor(state, userId, project, ref, !fact.branch)) return E.left(base(`Insufficient permissions for protected ref '${ref}'`));
  if (!fact.branch && !fact.tag) return E.left(base('Reference not found'));
  if (fact.sha === null) return E.left(base('Commit not found'));
  if (fact.branch && fact.tag) return E.left(base('Ref is ambiguous'));
  const invalid = variableErrors(variables);
  if (invalid.length > 0) return E.left(base(`Failed to persist the pipeline: Validation failed: ${invalid.join(', ')}`));
  return E.right(
    createPipelines(state.pipelines, [{ project_id, sha: fact.sha, ref, tag: fact.tag, source: 'api', user_id: userId, pipeline_schedule_id: null, variables }], issued.at),
  );
};

/** The pipeline, and `update_pipeline` on it: Developers, unless its ref is protected from them (PipelinePolicy). */
const updatable = (issued: Issued<{ readonly project_id: number; readonly pipeline_id: number }>, state: State): E.Either<DomainError, Pipeline> => {
  const found = requireProject(state, issued.command.project_id);
  if (E.isLeft(found)) return found;
  const pipeline = findPipeline(state.pipelines, found.right.id, issued.command.pipeline_id);
  if (!pipeline) return E.left(RECORD_NOT_FOUND);
  const userId = issued.actor.userId;
  if (userId === null) return E.right(pipeline);
  if (!canOnProject(state, userId, 'update_pipeline', found.right) || refProtectedFor(state, userId, found.right, pipeline.ref, pipeline.tag)) return E.left(forbidden());
  return E.right(pipeline);
};

/** Statuses `cancel_running` stops (`Ci::HasStatus::CANCELABLE_STATUSES`). */
const CANCELABLE: readonly PipelineStatus[] = ['running', 'waiting_for_resource', 'preparing', 'pending', 'created', 'scheduled'];

export const decide = decideByType<PipelineCommand, State, Result>({
  CreatePipeline: decideCreate,
  CancelPipeline: (issued, state) =>
    E.map((pipeline: Pipeline): readonly PipelineEvent[] =>
      CANCELABLE.includes(pipeline.status) ? [{ type: 'PipelineCanceled', data: { project_id: pipeline.project_id, id: pipeline.id, at: issued.at } }] : [],
    )(updatable(issued, state)),
  // `retry_failed`: only failed and canceled jobs run again; a pipeline with none stays as it is.
  RetryPipeline: (issued, state) =>
    E.map((pipeline: Pipeline): readonly PipelineEvent[] =>
      pipeline.status === 'canceled' || pipeline.status === 'failed' ? [{ type: 'PipelineRetried', data: { project_id: pipeline.project_id, id: pipeline.id, at: issued.at } }] : [],
    )(updatable(issued, state)),
  DeletePipeline: (issued, state) => {
    const { project_id, pipeline_id } = issued.command;
    const found = requireProject(state, project_id);
    if (E.isLeft(found)) return found;
    const pipeline = findPipeline(state.pipelines, project_id, pipeline_id);
    if (!pipeline) return E.left(RECORD_NOT_FOUND);
    return authorizeProject(state, issued.actor.userId, 'destroy_pipeline', found.right, [{ type: 'PipelineDeleted' as const, data: { project_id, id: pipeline_id } }]);
  },
});
