/**
 * Decider specs of the schedules module: validations and next_run_at on the worker grid, the 14.7 permission
 * rules, play, variables, and the scheduler's runs (a pipeline for the owner, or a recorded skip).
 */
import { forbidden, notFound, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, type Spec } from './spec.js';
import { pipelineBase, pipelineCreated } from './pipelines.js';

/** `0 1 * * *` UTC created at AT: ideal 01:00, the worker's next tick after it 01:03. */
const FIRST_RUN = '2026-01-01T01:03:00.000Z';

const scheduleCreated = (id: number, ref: string, options: { owner?: number; active?: boolean; next?: string } = {}): ForgefoldEvent => ({
  type: 'ScheduleCreated',
  data: {
    project_id: 1,
    id,
    description: `Schedule ${id}`,
    ref,
    cron: '0 1 * * *',
    cron_timezone: 'UTC',
    active: options.active ?? true,
    owner_id: options.owner ?? 2,
    next_run_at: options.next ?? FIRST_RUN,
    created_at: AT,
  },
});

const withSchedule = [...pipelineBase, scheduleCreated(1, 'feature')];
const ofMaint = [...pipelineBase, scheduleCreated(1, 'main', { owner: 4 })];
const variable = (key: string, value: string): ForgefoldEvent => ({ type: 'ScheduleVariableCreated', data: { project_id: 1, schedule_id: 1, key, value, variable_type: 'env_var' } });

export const scheduleSpecs: Record<string, Spec> = {
  'a Developer creates a schedule: the owner, the cron stripped, next_run_at on the worker grid': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipelineSchedule', project_id: 1, description: 'Schedule 1', ref: 'feature', cron: ' 0 1 * * * ', cron_timezone: 'UTC', active: true },
    then: [scheduleCreated(1, 'feature')],
  },
  'a Rails zone is kept verbatim and its offset used': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipelineSchedule', project_id: 1, description: 'Tokyo', ref: 'feature', cron: '0 9 * * *', cron_timezone: 'Tokyo', active: false },
    then: [
      {
        type: 'ScheduleCreated',
        data: { project_id: 1, id: 1, description: 'Tokyo', ref: 'feature', cron: '0 9 * * *', cron_timezone: 'Tokyo', active: false, owner_id: 2, next_run_at: '2026-01-02T00:03:00.000Z', created_at: AT },
      },
    ],
  },
  'invalid cron, zone and blank description are the model errors, in its order': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipelineSchedule', project_id: 1, description: '', ref: 'feature', cron: '60 * * * *', cron_timezone: 'Mars/Olympus', active: true },
    error: validation({ cron: [' is invalid syntax'], cron_timezone: ['syntax is invalid'], description: ["can't be blank"] }),
  },
  'a Reporter may not create a schedule': {
    given: pipelineBase,
    as: 3,
    when: { type: 'CreatePipelineSchedule', project_id: 1, description: 'x', ref: 'feature', cron: '0 1 * * *', cron_timezone: 'UTC', active: true },
    error: forbidden(),
  },
  'the owner updates: rescheduled from now': {
    given: withSchedule,
    as: 2,
    at: '2026-01-01T05:00:00.000Z',
    when: { type: 'UpdatePipelineSchedule', project_id: 1, schedule_id: 1, changes: { cron: '30 6 * * *' } },
    then: [{ type: 'ScheduleUpdated', data: { project_id: 1, id: 1, cron: '30 6 * * *', next_run_at: '2026-01-01T06:33:00.000Z', updated_at: '2026-01-01T05:00:00.000Z' } }],
  },
  'an update to the same values writes nothing (the next run from now is the one held)': {
    given: withSchedule,
    as: 2,
    at: '2026-01-01T00:30:00.000Z',
    when: { type: 'UpdatePipelineSchedule', project_id: 1, schedule_id: 1, changes: { description: 'Schedule 1', cron: ' 0 1 * * *', active: true } },
    then: [],
  },
  'an update to the same values of a schedule whose next run has passed moves the next run (set_next_run_at)': {
    given: [...pipelineBase, scheduleCreated(1, 'feature', { active: false })],
    as: 2,
    at: '2026-01-03T12:00:00.000Z',
    when: { type: 'UpdatePipelineSchedule', project_id: 1, schedule_id: 1, changes: { description: 'Schedule 1' } },
    then: [{ type: 'ScheduleUpdated', data: { project_id: 1, id: 1, description: 'Schedule 1', next_run_at: '2026-01-04T01:03:00.000Z', updated_at: '2026-01-03T12:00:00.000Z' } }],
  },
  'a Developer may not update a schedule of someone else': {
    given: ofMaint,
    as: 2,
    when: { type: 'UpdatePipelineSchedule', project_id: 1, schedule_id: 1, changes: { description: 'mine' } },
    error: forbidden(),
  },
  'a Maintainer may update a schedule of someone else (14.7)': {
    given: withSchedule,
    as: 4,
    when: { type: 'UpdatePipelineSchedule', project_id: 1, schedule_id: 1, changes: { active: false } },
    then: [{ type: 'ScheduleUpdated', data: { project_id: 1, id: 1, active: false, next_run_at: FIRST_RUN, updated_at: AT } }],
  },
  'a Guest cannot see a schedule: 404': {
    given: [...withSchedule, { type: 'MemberAdded', data: { id: 9, source_type: 'Project', source_id: 1, user_id: 1, invite_email: null, access_level: 10, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } }],
    as: 3,
    when: { type: 'DeletePipelineSchedule', project_id: 1, schedule_id: 2 },
    error: notFound('Pipeline Schedule'),
  },
  'the owner deletes a schedule': {
    given: withSchedule,
    as: 2,
    when: { type: 'DeletePipelineSchedule', project_id: 1, schedule_id: 1 },
    then: [{ type: 'ScheduleDeleted', data: { project_id: 1, id: 1 } }],
  },
  'a Maintainer takes ownership: the schedule is saved, so rescheduled': {
    given: withSchedule,
    as: 4,
    at: '2026-01-01T02:00:00.000Z',
    when: { type: 'TakePipelineScheduleOwnership', project_id: 1, schedule_id: 1 },
    then: [{ type: 'ScheduleOwnershipTaken', data: { project_id: 1, id: 1, owner_id: 4, next_run_at: '2026-01-02T01:03:00.000Z', updated_at: '2026-01-01T02:00:00.000Z' } }],
  },
  'its owner taking ownership again writes nothing': {
    given: withSchedule,
    as: 2,
    at: '2026-01-01T00:30:00.000Z',
    when: { type: 'TakePipelineScheduleOwnership', project_id: 1, schedule_id: 1 },
    then: [],
  },
  'play runs now as the player; next_run_at is unaffected': {
    given: [...withSchedule, variable('FROM', 'play')],
    as: 2,
    when: { type: 'PlayPipelineSchedule', project_id: 1, schedule_id: 1 },
    then: [
      { type: 'SchedulePlayed', data: { project_id: 1, id: 1, user_id: 2, at: AT } },
      {
        type: 'PipelineCreated',
        data: { ...(pipelineCreated(1, 'feature', { source: 'schedule', schedule: 1 }).data as object), variables: [{ key: 'FROM', value: 'play', variable_type: 'env_var' }] },
      } as ForgefoldEvent,
    ],
  },
  'a Developer may not play a schedule of a protected ref': {
    given: ofMaint,
    as: 2,
    when: { type: 'PlayPipelineSchedule', project_id: 1, schedule_id: 1 },
    error: forbidden(),
  },
  'a play whose ref is gone records the skip': {
    given: [...pipelineBase, scheduleCreated(1, 'gone')],
    as: 2,
    when: { type: 'PlayPipelineSchedule', project_id: 1, schedule_id: 1 },
    then: [
      { type: 'SchedulePlayed', data: { project_id: 1, id: 1, user_id: 2, at: AT } },
      { type: 'ScheduleRunSkipped', data: { project_id: 1, id: 1, trigger: 'play', user_id: 2, reason: 'ref_missing', message: 'Reference not found', next_run_at: FIRST_RUN, at: AT } },
    ],
  },
  'a variable is created with its key stripped': {
    given: withSchedule,
    as: 2,
    when: { type: 'CreatePipelineScheduleVariable', project_id: 1, schedule_id: 1, key: ' DEPLOY ', value: 'yes', variable_type: 'file' },
    then: [{ type: 'ScheduleVariableCreated', data: { project_id: 1, schedule_id: 1, key: 'DEPLOY', value: 'yes', variable_type: 'file' } }],
  },
  'a taken variable key is a 400 validation error': {
    given: [...withSchedule, variable('DEPLOY', 'yes')],
    as: 2,
    when: { type: 'CreatePipelineScheduleVariable', project_id: 1, schedule_id: 1, key: 'DEPLOY', value: 'no', variable_type: 'env_var' },
    error: validation({ key: ['has already been taken'] }),
  },
  'a variable is updated': {
    given: [...withSchedule, variable('DEPLOY', 'yes')],
    as: 2,
    when: { type: 'UpdatePipelineScheduleVariable', project_id: 1, schedule_id: 1, key: 'DEPLOY', value: 'no' },
    then: [{ type: 'ScheduleVariableUpdated', data: { project_id: 1, schedule_id: 1, key: 'DEPLOY', value: 'no', variable_type: 'env_var' } }],
  },
  'a variable updated to the same value and type writes nothing': {
    given: [...withSchedule, variable('DEPLOY', 'yes')],
    as: 2,
    when: { type: 'UpdatePipelineScheduleVariable', project_id: 1, schedule_id: 1, key: 'DEPLOY', value: 'yes', variable_type: 'env_var' },
    then: [],
  },
  'an unknown variable is 404': {
    given: withSchedule,
    as: 2,
    when: { type: 'DeletePipelineScheduleVariable', project_id: 1, schedule_id: 1, key: 'NOPE' },
    error: notFound('Pipeline Schedule Variable'),
  },
  'a variable is deleted': {
    given: [...withSchedule, variable('DEPLOY', 'yes')],
    as: 2,
    when: { type: 'DeletePipelineScheduleVariable', project_id: 1, schedule_id: 1, key: 'DEPLOY' },
    then: [{ type: 'ScheduleVariableDeleted', data: { project_id: 1, schedule_id: 1, key: 'DEPLOY' } }],
  },
  'nothing runs before next_run_at': {
    given: withSchedule,
    at: '2026-01-01T01:02:59.999Z',
    when: { type: 'RunDueSchedules' },
    then: [],
  },
  'a due schedule runs for its owner and moves on (after downtime: once, from now)': {
    given: [...withSchedule, scheduleCreated(2, 'feature', { active: false })],
    at: '2026-01-03T12:00:00.000Z',
    when: { type: 'RunDueSchedules' },
    then: [
      { type: 'ScheduleRan', data: { project_id: 1, id: 1, owner_id: 2, pipeline_id: 1, next_run_at: '2026-01-04T01:03:00.000Z', at: '2026-01-03T12:00:00.000Z' } },
      { type: 'PipelineCreated', data: { ...(pipelineCreated(1, 'feature', { source: 'schedule', schedule: 1 }).data as object), created_at: '2026-01-03T12:00:00.000Z' } } as ForgefoldEvent,
    ],
  },
  'a blocked owner and a missing ref are recorded as skipped runs': {
    given: [...pipelineBase, scheduleCreated(1, 'feature'), scheduleCreated(2, 'gone', { owner: 4 }), { type: 'UserBlocked', data: { id: 2, at: AT } }],
    at: FIRST_RUN,
    when: { type: 'RunDueSchedules' },
    then: [
      {
        type: 'ScheduleRunSkipped',
        data: { project_id: 1, id: 1, trigger: 'schedule', user_id: 2, reason: 'owner_blocked', message: 'Insufficient permissions to create a new pipeline', next_run_at: '2026-01-02T01:03:00.000Z', at: FIRST_RUN },
      },
      { type: 'ScheduleRunSkipped', data: { project_id: 1, id: 2, trigger: 'schedule', user_id: 4, reason: 'ref_missing', message: 'Reference not found', next_run_at: '2026-01-02T01:03:00.000Z', at: FIRST_RUN } },
    ],
  },
  'a Developer owner of a protected-ref schedule is skipped': {
    given: [...pipelineBase, scheduleCreated(1, 'main')],
    at: FIRST_RUN,
    when: { type: 'RunDueSchedules' },
    then: [
      {
        type: 'ScheduleRunSkipped',
        data: { project_id: 1, id: 1, trigger: 'schedule', user_id: 2, reason: 'protected_ref', message: "Insufficient permissions for protected ref 'main'", next_run_at: '2026-01-02T01:03:00.000Z', at: FIRST_RUN },
      },
    ],
  },
  'only the system runs the scheduler': { given: withSchedule, as: 1, when: { type: 'RunDueSchedules' }, error: forbidden() },
};

