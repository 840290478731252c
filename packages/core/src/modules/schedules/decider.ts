/**
 * Pipeline schedule decisions (14.7: `Ci::PipelineSchedule` validations and `Schedulable#set_next_run_at`, the
 * API's abilities, `PipelineScheduleWorker` and `RunPipelineScheduleWorker`). `next_run_at` is computed from the
 * command's time (the injected clock) and recorded in the event, so replay never asks the cron again.
 */
import * as E from 'fp-ts/lib/Either.js';
import { DEFAULT_CRON_SETTINGS, nextRunAt, scheduleCronErrors, stripCron } from '@forgefold/cron';
import { forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type Issued, type IssuedAs } from '../../kernel/decider.js';
import type { DomainEvent } from '../../kernel/envelope.js';
import { canOnProject } from '../access/abilities.js';
import { findProject } from '../projects/queries.js';
import type { Project } from '../projects/projection.js';
import { findUser } from '../users/queries.js';
import { createPipelines, type NewPipeline } from '../pipelines/builders.js';
import { changesAnything, isRubyBlank } from '../shared/validation.js';
import { refFactOf, refProtectedFor } from '../pipelines/queries.js';
import type { ScheduleCommand } from './commands.js';
import type { ScheduleEvent, ScheduleRunSkipReason } from './events.js';
import type { Schedule, ScheduleVariable, SchedulesView } from './projection.js';
import { canAdminSchedule, canPlaySchedule, canReadSchedule, dueSchedules, findSchedule } from './queries.js';

type State = SchedulesView;
type Result = E.Either<DomainError, readonly DomainEvent[]>;

const SCHEDULE_NOT_FOUND = notFound('Pipeline Schedule');
const VARIABLE_NOT_FOUND = notFound('Pipeline Schedule Variable');
const BLANK = "can't be blank";

/** `set_next_run_at` at `at`, as an ISO timestamp (null when the cron has no next time). */
const scheduleNextRunAt = (cron: string, timezone: string, at: string): string | null => {
  const next = nextRunAt(cron, timezone, Date.parse(at), DEFAULT_CRON_SETTINGS);
  return next.ok ? next.at.toISOString() : null;
};

/** The model's validations, in the order it declares them: cron, cron_timezone, ref, description. */
const scheduleErrors = (fields: { cron: string; cron_timezone: string; ref: string; description: string }): DomainError | null => {
  const errors: Record<string, readonly string[]> = {};
  const cron = scheduleCronErrors(fields.cron, fields.cron_timezone);
  if (cron.cron.length > 0) errors['cron'] = cron.cron;
  if (cron.cron_timezone.length > 0) errors['cron_timezone'] = cron.cron_timezone;
  if (isRubyBlank(fields.ref)) errors['ref'] = [BLANK];
  if (isRubyBlank(fields.description)) errors['description'] = [BLANK];
  return Object.keys(errors).length > 0 ? validation(errors) : null;
};

const requireProject = (state: State, id: number): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, id);
  return project ? E.right(project) : E.left(notFound('Project'));
};

/** The `pipeline_schedule` helper: missing, or not readable by the caller, is "404 Pipeline Schedule Not Found". */
const readable = (state: State, issued: Issued<{ readonly project_id: number; readonly schedule_id: number }>): E.Either<DomainError, { project: Project; schedule: Schedule }> => {
  const found = requireProject(state, issued.command.project_id);
  if (E.isLeft(found)) return found;
  const schedule = findSchedule(state.schedules, found.right.id, issued.command.schedule_id);
  if (!schedule || !canReadSchedule(state, issued.actor.userId, found.right)) return E.left(SCHEDULE_NOT_FOUND);
  return E.right({ project: found.right, schedule });
};

const administrable = (state: State, issued: Issued<{ readonly project_id: number; readonly schedule_id: number }>) =>
  E.chain((found: { project: Project; schedule: Schedule }) => (canAdminSchedule(state, issued.actor.userId, found.project, found.schedule) ? E.right(found) : E.left(forbidden())))(
    readable(state, issued),
  );

/** `HasVariable` and the schedule's uniqueness (`{"key": [...]}`). */
const variableKeyErrors = (key: string, taken: boolean): DomainError | null => {
  const errors: string[] = [];
  if (key === '') errors.push(BLANK);
  if (key.length > 255) errors.push('is too long (maximum is 255 characters)');
  if (!/^[a-zA-Z0-9_]+$/.test(key)) errors.push("can contain only letters, digits and '_'.");
  if (taken) errors.push('has already been taken');
  return errors.length > 0 ? validation({ key: errors }) : null;
};

type Run = { readonly pipeline: NewPipeline } | { readonly skipped: ScheduleRunSkipReason; readonly message: string };

/**
 * A run as `RunPipelineScheduleWorker` makes it for `userId` (`Ci::CreatePipelineService#execute(:schedule)`): the
 * user must exist, be active and create pipelines; the ref must exist, be unambiguous and not be protected from them.
 */
const runAs = (state: State, project: Project, schedule: Schedule, userId: number | null): Run => {
  const user = userId === null ? undefined : findUser(state.users, userId);
  if (!user) return { skipped: 'owner_missing', message: 'The schedule has no owner' };
  if (user.state !== 'active') return { skipped: 'owner_blocked', message: 'Insufficient permissions to create a new pipeline' };
  if (!canOnProject(state, user.id, 'create_pipeline', project)) return { skipped: 'insufficient_permissions', message: 'Insufficient permissions to create a new pipeline' };
  const fact = refFactOf(state, project.id, schedule.ref);
  if ((fact.branch || fact.tag) && refProtectedFor(state, user.id, project, schedule.ref, !fact.branch)) {
    return { skipped: 'protected_ref', message: `Insufficient permissions for protected ref '${schedule.ref}'` };
  }
  if (!fact.branch && !fact.tag) return { skipped: 'ref_missing', message: 'Reference not found' };
  if (fact.sha === null) return { skipped: 'ref_missing', message: 'Commit not found' };
  if (fact.branch && fact.tag) return { skipped: 'ref_ambiguous', message: 'Ref is ambiguous' };
  return {
    pipeline: { project_id: project.id, sha: fact.sha, ref: schedule.ref, tag: fact.tag, source: 'schedule', user_id: user.id, pipeline_schedule_id: schedule.id, variables: schedule.variables },
  };
};

const decideCreate = (issued: IssuedAs<ScheduleCommand, 'CreatePipelineSchedule'>, state: State): Result => {
  const { project_id, description, ref, cron_timezone, active } = issued.command;
  const found = requireProject(state, project_id);
  if (E.isLeft(found)) return found;
  const userId = issued.actor.userId;
  if (userId === null) return E.left(forbidden());
  if (!canOnProject(state, userId, 'create_pipeline_schedule', found.right)) return E.left(forbidden());
  const cron = stripCron(issued.command.cron);
  const invalid = scheduleErrors({ cron, cron_timezone, ref, description });
  if (invalid) return E.left(invalid);
  return E.right([
    {
      type: 'ScheduleCreated',
      data: {
        project_id,
        id: state.schedules.sequence + 1,
        description,
        ref,
        cron,
        cron_timezone,
        active,
        owner_id: userId,
        next_run_at: scheduleNextRunAt(cron, cron_timezone, issued.at),
        created_at: issued.at,
      },
    },
  ]);
};

const decideUpdate = (issued: IssuedAs<ScheduleCommand, 'UpdatePipelineSchedule'>, state: State): Result =>
  E.chain(({ schedule }: { schedule: Schedule }): Result => {
    const changes = { ...issued.command.changes, ...(issued.command.changes.cron !== undefined ? { cron: stripCron(issued.command.changes.cron) } : {}) };
    const merged = { ...schedule, ...changes };
    const invalid = scheduleErrors(merged);
    if (invalid) return E.left(invalid);
    const next_run_at = scheduleNextRunAt(merged.cron, merged.cron_timezone, issued.at);
    // `before_save :set_next_run_at` sets the next run again: a save that moves nothing, not even that, writes nothing.
    if (!changesAnything(schedule, { ...changes, next_run_at })) return E.right([]);
    const event: ScheduleEvent = { type: 'ScheduleUpdated', data: { project_id: schedule.project_id, id: schedule.id, ...changes, next_run_at, updated_at: issued.at } };
    return E.right([event]);
  })(administrable(state, issued));

const decidePlay = (issued: IssuedAs<ScheduleCommand, 'PlayPipelineSchedule'>, state: State): Result =>
  E.chain(({ project, schedule }: { project: Project; schedule: Schedule }): Result => {
    const userId = issued.actor.userId;
    if (userId === null) return E.left(forbidden());
    if (!canPlaySchedule(state, userId, project, schedule)) return E.left(forbidden());
    const played: ScheduleEvent = { type: 'SchedulePlayed', data: { project_id: project.id, id: schedule.id, user_id: userId, at: issued.at } };
    const run = runAs(state, project, schedule, userId);
    if ('pipeline' in run) return E.right([played, ...createPipelines(state.pipelines, [run.pipeline], issued.at)]);
    const skipped: ScheduleEvent = {
      type: 'ScheduleRunSkipped',
      data: { project_id: project.id, id: schedule.id, trigger: 'play', user_id: userId, reason: run.skipped, message: run.message, next_run_at: schedule.next_run_at, at: issued.at },
    };
    return E.right([played, skipped]);
  })(readable(state, issued));

/**
 * `PipelineScheduleWorker`: each due schedule moves to its next run from now (`schedule_next_run!`, so a schedule
 * missed during downtime runs once), then runs for its owner.
 */
const decideRunDue = (issued: IssuedAs<ScheduleCommand, 'RunDueSchedules'>, state: State): Result => {
  if (issued.actor.userId !== null) return E.left(forbidden());
  const runs: { schedule: Schedule; run: Run; next: string | null }[] = [];
  // Schedules often share a cron and zone (`0 1 * * *`): their next run from this moment is computed once.
  const nextRuns = new Map<string, string | null>();
  const nextOf = (schedule: Schedule): string | null => {
    const key = `${schedule.cron}\n${schedule.cron_timezone}`;
    let next = nextRuns.get(key);
    if (next === undefined) {
      next = scheduleNextRunAt(schedule.cron, schedule.cron_timezone, issued.at);
      nextRuns.set(key, next);
    }
    return next;
  };
  for (const schedule of dueSchedules(state.schedules, issued.at)) {
    const project = findProject(state.projects, schedule.project_id);
    if (!project) continue;
    runs.push({ schedule, run: runAs(state, project, schedule, schedule.owner_id), next: nextOf(schedule) });
  }
  const pipelines = createPipelines(
    state.pipelines,
    runs.flatMap(({ run }) => ('pipeline' in run ? [run.pipeline] : [])),
    issued.at,
  );
  let created = 0;
  const events: DomainEvent[] = [];
  for (const { schedule, run, next } of runs) {
    if ('pipeline' in run) {
      const pipeline = pipelines[created++]!;
      events.push({ type: 'ScheduleRan', data: { project_id: schedule.project_id, id: schedule.id, owner_id: run.pipeline.user_id!, pipeline_id: pipeline.data.id, next_run_at: next, at: issued.at } }, pipeline);
    } else {
      events.push({
        type: 'ScheduleRunSkipped',
        data: { project_id: schedule.project_id, id: schedule.id, trigger: 'schedule', user_id: schedule.owner_id, reason: run.skipped, message: run.message, next_run_at: next, at: issued.at },
      });
    }
  }
  return E.right(events);
};

const withVariable = (issued: IssuedAs<ScheduleCommand, 'UpdatePipelineScheduleVariable' | 'DeletePipelineScheduleVariable'>, schedule: Schedule): E.Either<DomainError, ScheduleVariable> => {
  const variable = schedule.variables.find((candidate) => candidate.key === issued.command.key);
  return variable ? E.right(variable) : E.left(VARIABLE_NOT_FOUND);
};

export const decide = decideByType<ScheduleCommand, State, Result>({
  CreatePipelineSchedule: decideCreate,
  UpdatePipelineSchedule: decideUpdate,
  DeletePipelineSchedule: (issued, state) =>
    E.map(({ schedule }: { schedule: Schedule }): readonly DomainEvent[] => [{ type: 'ScheduleDeleted', data: { project_id: schedule.project_id, id: schedule.id } }])(administrable(state, issued)),
  TakePipelineScheduleOwnership: (issued, state) =>
    E.chain(({ schedule }: { schedule: Schedule }): Result => {
      const owner_id = issued.actor.userId;
      if (owner_id === null) return E.left(forbidden());
      // `own!` saves the schedule, which sets `next_run_at` again; its owner taking it again moves nothing else.
      const next_run_at = scheduleNextRunAt(schedule.cron, schedule.cron_timezone, issued.at);
      if (!changesAnything(schedule, { owner_id, next_run_at })) return E.right([]);
      return E.right([{ type: 'ScheduleOwnershipTaken', data: { project_id: schedule.project_id, id: schedule.id, owner_id, next_run_at, updated_at: issued.at } }]);
    })(administrable(state, issued)),
  PlayPipelineSchedule: decidePlay,
  CreatePipelineScheduleVariable: (issued, state) =>
    E.chain(({ schedule }: { schedule: Schedule }): Result => {
      const { command } = issued;
      const key = command.key.trim();
      const invalid = variableKeyErrors(key, schedule.variables.some((variable) => variable.key === key));
      if (invalid) return E.left(invalid);
      return E.right([{ type: 'ScheduleVariableCreated', data: { project_id: schedule.project_id, schedule_id: schedule.id, key, value: command.value, variable_type: command.variable_type } }]);
    })(administrable(state, issued)),
  UpdatePipelineScheduleVariable: (issued, state) =>
    E.chain(({ schedule }: { schedule: Schedule }) =>
      E.map((variable: ScheduleVariable): readonly DomainEvent[] => {
        const value = issued.command.value ?? variable.value;
        const variable_type = issued.command.variable_type ?? variable.variable_type;
        // The platform re-encrypts even the same value (a new IV), which no answer shows: nothing is written.
        if (!changesAnything(variable, { value, variable_type })) return [];
        return [{ type: 'ScheduleVariableUpdated', data: { project_id: schedule.project_id, schedule_id: schedule.id, key: variable.key, value, variable_type } }];
      })(withVariable(issued, schedule)),
    )(administrable(state, issued)),
  DeletePipelineScheduleVariable: (issued, state) =>
    E.chain(({ schedule }: { schedule: Schedule }) =>
      E.map((variable: ScheduleVariable): readonly DomainEvent[] => [{ type: 'ScheduleVariableDeleted', data: { project_id: schedule.project_id, schedule_id: schedule.id, key: variable.key } }])(
        withVariable(issued, schedule),
      ),
    )(administrable(state, issued)),
  RunDueSchedules: decideRunDue,
});
