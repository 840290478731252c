/** Decider specs of the pipelines module: creation from a ref fact (the platform's refusals on `base`), cancel, retry, delete. */
import { forbidden, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const A = 'a'.repeat(40);
const BLANK = '0'.repeat(40);

/** Project 1 (personal to root) with dev (30), rep (20), maint (40); `main` protected for Maintainers, `feature` open. */
export const pipelineBase: ForgefoldEvent[] = [
  userCreated(1, 'root', { admin: true }),
  userCreated(2, 'dev'),
  userCreated(3, 'rep'),
  userCreated(4, 'maint'),
  projectCreated(1, 'app', 101, { kind: 'user' }),
  memberAdded(1, { project: 1 }, 2, 30),
  memberAdded(2, { project: 1 }, 3, 20),
  memberAdded(3, { project: 1 }, 4, 40),
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: A, via: 'api' } },
  { type: 'BranchCreated', data: { project_id: 1, name: 'feature', sha: A, via: 'api' } },
  {
    type: 'ProtectedBranchCreated',
    data: {
      project_id: 1,
      id: 1,
      name: 'main',
      push_access_levels: [{ id: 1, access_level: 40 }],
      merge_access_levels: [{ id: 2, access_level: 40 }],
      unprotect_access_levels: [],
      allow_force_push: false,
      code_owner_approval_required: false,
      created_at: AT,
    },
  },
];

export const pipelineCreated = (id: number, ref: string, options: { user?: number; schedule?: number | null; source?: 'api' | 'schedule'; iid?: number } = {}): ForgefoldEvent => ({
  type: 'PipelineCreated',
  data: {
    project_id: 1,
    id,
    iid: options.iid ?? id,
    sha: A,
    before_sha: BLANK,
    ref,
    tag: false,
    source: options.source ?? 'api',
    status: 'created',
    user_id: options.user ?? 2,
    pipeline_schedule_id: options.schedule ?? null,
    variables: [],
    created_at: AT,
  },
});

const branchFact = { branch: true, tag: false, sha: A };
const base = (message: string) => validation({ base: [message] });

export const pipelineSpecs: Record<string, Spec> = {
  'a Developer creates a pipeline on an open branch, with its variables': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipeline', project_id: 1, ref: 'feature', variables: [{ key: 'A', value: '1', variable_type: 'env_var' }], fact: branchFact },
    then: [
      {
        type: 'PipelineCreated',
        data: {
          project_id: 1,
          id: 1,
          iid: 1,
          sha: A,
          before_sha: BLANK,
          ref: 'feature',
          tag: false,
          source: 'api',
          status: 'created',
          user_id: 2,
          pipeline_schedule_id: null,
          variables: [{ key: 'A', value: '1', variable_type: 'env_var' }],
          created_at: AT,
        },
      },
    ],
  },
  'an unknown ref is "Reference not found"': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipeline', project_id: 1, ref: 'nope', variables: [], fact: { branch: false, tag: false, sha: null } },
    error: base('Reference not found'),
  },
  'a Developer may not run a pipeline on a protected branch': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipeline', project_id: 1, ref: 'main', variables: [], fact: branchFact },
    error: base("Insufficient permissions for protected ref 'main'"),
  },
  'a branch and a tag of one name are ambiguous': {
    given: pipelineBase,
    as: 4,
    when: { type: 'CreatePipeline', project_id: 1, ref: 'feature', variables: [], fact: { branch: true, tag: true, sha: A } },
    error: base('Ref is ambiguous'),
  },
  'variable keys are checked as the model does': {
    given: pipelineBase,
    as: 2,
    when: { type: 'CreatePipeline', project_id: 1, ref: 'feature', variables: [{ key: 'bad key', value: '', variable_type: 'env_var' }], fact: branchFact },
    error: base("Failed to persist the pipeline: Validation failed: Variables key can contain only letters, digits and '_'."),
  },
  'iids count per project': {
    given: [...pipelineBase, pipelineCreated(1, 'feature')],
    as: 4,
    when: { type: 'CreatePipeline', project_id: 1, ref: 'main', variables: [], fact: branchFact },
    then: [{ type: 'PipelineCreated', data: { ...(pipelineCreated(2, 'main', { user: 4 }).data as object), iid: 2 } } as ForgefoldEvent],
  },
  'cancel stops a created pipeline': {
    given: [...pipelineBase, pipelineCreated(1, 'feature')],
    as: 2,
    when: { type: 'CancelPipeline', project_id: 1, pipeline_id: 1 },
    then: [{ type: 'PipelineCanceled', data: { project_id: 1, id: 1, at: AT } }],
  },
  'a Developer may not cancel a pipeline of a protected branch': {
    given: [...pipelineBase, pipelineCreated(1, 'main', { user: 4 })],
    as: 2,
    when: { type: 'CancelPipeline', project_id: 1, pipeline_id: 1 },
    error: forbidden(),
  },
  'retry makes a canceled pipeline pending': {
    given: [...pipelineBase, pipelineCreated(1, 'feature'), { type: 'PipelineCanceled', data: { project_id: 1, id: 1, at: AT } }],
    as: 2,
    when: { type: 'RetryPipeline', project_id: 1, pipeline_id: 1 },
    then: [{ type: 'PipelineRetried', data: { project_id: 1, id: 1, at: AT } }],
  },
  'retrying a pipeline with nothing failed changes nothing': {
    given: [...pipelineBase, pipelineCreated(1, 'feature')],
    as: 2,
    when: { type: 'RetryPipeline', project_id: 1, pipeline_id: 1 },
    then: [],
  },
  'only the owner deletes a pipeline': {
    given: [...pipelineBase, pipelineCreated(1, 'feature')],
    as: 4,
    when: { type: 'DeletePipeline', project_id: 1, pipeline_id: 1 },
    error: forbidden(),
  },
  'the owner deletes a pipeline': {
    given: [...pipelineBase, pipelineCreated(1, 'feature')],
    as: 1,
    when: { type: 'DeletePipeline', project_id: 1, pipeline_id: 1 },
    then: [{ type: 'PipelineDeleted', data: { project_id: 1, id: 1 } }],
  },
};
