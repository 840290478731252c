/**
 * Decisions about environments and deployments (`Environments` API, `Deployments::CreateService`,
 * `Deployment#update_status`; reference §3).
 */
import * as E from 'fp-ts/lib/Either.js';
import { badRequest, forbidden, notFound, unauthorized, validation, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, withOutcome, type Decision, type Issued } from '../../kernel/decider.js';
import { authorizeProject, type ProjectAbility } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import { findProject } from '../projects/queries.js';
import { addressableUrlError } from '../shared/url-blocker.js';
import { changesAnything, DAY_MS, Errors, isRubyBlank, MAX_NAME, rubyStrip } from '../shared/validation.js';
import type { DeploymentCommand } from './commands.js';
import type { DeploymentEvent } from './events.js';
import type { DeploymentsView, Environment } from './projection.js';
import { autoDeletableEnvironments, canReadDeployments, findDeployment, findEnvironment, findEnvironmentByName, lastDeployment, projectDeployments, stoppedReviewApps } from './queries.js';
import { environmentSlug } from './slug.js';
import { transition } from './status.js';

type State = DeploymentsView;
type Command<T extends DeploymentCommand['type']> = Extract<DeploymentCommand, { type: T }>;
type Decided = E.Either<DomainError, Decision<DeploymentEvent>>;

/** What a create reports: the deployment (new, or the existing one an identical request returns). */
export interface DeploymentOutcome {
  readonly deployment_id: number;
}

const ENVIRONMENT_MESSAGES = {
  name_format: "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'",
  taken: 'has already been taken',
  blank: "can't be blank",
} as const;

const DEPLOYMENT_MESSAGES = {
  sha: 'The commit does not exist',
  ref: 'The branch or tag does not exist',
  cannot_transition: (event: string) => `cannot transition via "${event}"`,
} as const;

/** `Gitlab::Regex.environment_name_regex`: allowed characters, not starting or ending with `/`. */
const ENVIRONMENT_NAME = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_/${}. -]*[a-zA-Z0-9_${}. -])?$/;

/**
 * `external_url` as the model keeps it: blank is nil (`nullify_external_url`), and `addressable_url` strips what it
 * validates (`strip_value!`).
 */
const storedExternalUrl = (value: string | null | undefined): string | null => (value === null || value === undefined || isRubyBlank(value) ? null : rubyStrip(value));

const checkEnvironment = (state: State, projectId: number, fields: { name?: string; external_url?: string | null }, self: Environment | null): Errors => {
  const errors = new Errors();
  const { name, external_url } = fields;
  if (name !== undefined) {
    if (isRubyBlank(name)) errors.add('name', ENVIRONMENT_MESSAGES.blank);
    else {
      const other = findEnvironmentByName(state.deployments, projectId, name);
      if (other && other.id !== self?.id) errors.add('name', ENVIRONMENT_MESSAGES.taken);
    }
    errors.maxLength('name', name, MAX_NAME);
    // The format validator runs on blank values too (no `allow_blank`): an empty name gets both messages.
    if (!ENVIRONMENT_NAME.test(name)) errors.add('name', ENVIRONMENT_MESSAGES.name_format);
  }
  // `validates :external_url, length: { maximum: 255 }, allow_nil: true, addressable_url: true`, after the blank
  // value became nil: never "must be a valid URL", but UrlBlocker's reasons (localhost and private addresses allowed).
  if (storedExternalUrl(external_url) !== null) {
    errors.maxLength('external_url', external_url ?? '', MAX_NAME);
    const problem = addressableUrlError(external_url);
    if (problem) errors.add('external_url', problem);
  }
  return errors;
};

const locateProject = (state: State, issued: Issued<{ readonly project_id: number }>, abilities: readonly ProjectAbility[]): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, issued.command.project_id);
  if (!project) return E.left(notFound('Project'));
  for (const ability of abilities) {
    const allowed = authorizeProject(state, issued.actor.userId, ability, project, project);
    if (E.isLeft(allowed)) return allowed;
  }
  return E.right(project);
};

/** `authorize! :read_environment` (or `:read_deployment`) `, user_project`: public and internal projects' readers too. */
const locateReadableProject = (state: State, issued: Issued<{ readonly project_id: number }>): E.Either<DomainError, Project> => {
  const project = locateProject(state, issued, []);
  if (E.isLeft(project)) return project;
  const userId = issued.actor.userId;
  return userId === null || canReadDeployments(state, userId, project.right) ? project : E.left(forbidden());
};

/** The readable project, then `environments.find` ("404 Not found"). */
const locateEnvironment = (state: State, issued: Issued<{ readonly project_id: number; readonly environment_id: number }>) => {
  const project = locateReadableProject(state, issued);
  if (E.isLeft(project)) return project;
  const environment = findEnvironment(state.deployments, project.right.id, issued.command.environment_id);
  return environment ? E.right(environment) : E.left(notFound(undefined, '404 Not found'));
};

const environmentCreated = (state: State, projectId: number, name: string, externalUrl: string | null, at: string): Extract<DeploymentEvent, { type: 'EnvironmentCreated' }> => ({
  type: 'EnvironmentCreated',
  data: { project_id: projectId, id: state.deployments.sequences.environment + 1, name, slug: environmentSlug(name), external_url: externalUrl, created_at: at },
});

const decideCreateEnvironment = (issued: Issued<Command<'CreateEnvironment'>>, state: State): Decided => {
  const project = locateProject(state, issued, ['create_environment']);
  if (E.isLeft(project)) return project;
  const { name, external_url } = issued.command;
  const checked = checkEnvironment(state, project.right.id, { name, external_url: external_url ?? null }, null).toEither(null);
  if (E.isLeft(checked)) return checked;
  return E.right([environmentCreated(state, project.right.id, name, storedExternalUrl(external_url), issued.at)]);
};

const decideUpdateEnvironment = (issued: Issued<Command<'UpdateEnvironment'>>, state: State): Decided => {
  const project = locateProject(state, issued, ['update_environment']);
  if (E.isLeft(project)) return project;
  const environment = locateEnvironment(state, issued);
  if (E.isLeft(environment)) return environment;
  const { name, external_url } = issued.command;
  const checked = checkEnvironment(state, environment.right.project_id, { ...(name !== undefined ? { name } : {}), ...(external_url !== undefined ? { external_url } : {}) }, environment.right).toEither(null);
  if (E.isLeft(checked)) return checked;
  const changes = { ...(name !== undefined ? { name } : {}), ...(external_url !== undefined ? { external_url: storedExternalUrl(external_url) } : {}) };
  if (!changesAnything(environment.right, changes)) return E.right([]);
  return E.right([
    {
      type: 'EnvironmentUpdated',
      data: {
        project_id: environment.right.project_id,
        id: environment.right.id,
        ...(name !== undefined ? { name } : {}),
        ...(external_url !== undefined ? { external_url: storedExternalUrl(external_url) } : {}),
        updated_at: issued.at,
      },
    },
  ]);
};

/** `Environments::StopService` without a stop action: an available environment stops; a stopped one stays; nothing happens for a caller without `stop_environment`. */
const decideStopEnvironment = (issued: Issued<Command<'StopEnvironment'>>, state: State): Decided => {
  const environment = locateEnvironment(state, issued);
  if (E.isLeft(environment)) return environment;
  // `StopService` returns quietly when the caller may not stop (the route still answers 200 with the environment).
  const allowed = authorizeProject(state, issued.actor.userId, 'stop_environment', findProject(state.projects, environment.right.project_id)!, null);
  if (E.isLeft(allowed) || environment.right.state === 'stopped') return E.right([]);
  return E.right([{ type: 'EnvironmentStopped', data: { project_id: environment.right.project_id, id: environment.right.id, at: issued.at } }]);
};

/** `authorize! :destroy_environment`: an available environment cannot be deleted (403). */
const decideDeleteEnvironment = (issued: Issued<Command<'DeleteEnvironment'>>, state: State): Decided => {
  const environment = locateEnvironment(state, issued);
  if (E.isLeft(environment)) return environment;
  const allowed = authorizeProject(state, issued.actor.userId, 'destroy_environment', findProject(state.projects, environment.right.project_id)!, null);
  if (E.isLeft(allowed)) return allowed;
  if (environment.right.state !== 'stopped') return E.left(forbidden());
  return E.right([{ type: 'EnvironmentDeleted', data: { project_id: environment.right.project_id, id: environment.right.id } }]);
};

/** What a review apps clean-up scheduled: the environments, oldest first. */
export interface ReviewAppsOutcome {
  readonly environment_ids: readonly number[];
}

/** `Environment.schedule_to_delete`'s default: a week from now. */
const AUTO_DELETE_AFTER_MS = 7 * DAY_MS;

/**
 * `Environments::ScheduleToDeleteReviewAppsService#execute` when not a dry run (the route answers a dry run from the
 * same query, and the service's refusals with their bodies; these checks stand for a state that changed between).
 * Every stopped environment may be destroyed by whoever may destroy the project's, so none is unprocessable.
 */
const decideScheduleReviewAppsDeletion = (issued: Issued<Command<'ScheduleReviewAppsDeletion'>>, state: State): Decided => {
  const project = locateReadableProject(state, issued);
  if (E.isLeft(project)) return project;
  if (E.isLeft(authorizeProject(state, issued.actor.userId, 'destroy_environment', project.right, null))) return E.left(unauthorized);
  const environments = stoppedReviewApps(state.deployments, project.right.id, issued.command.before, issued.command.limit);
  if (environments.length === 0) return E.left(badRequest());
  const auto_delete_at = new Date(Date.parse(issued.at) + AUTO_DELETE_AFTER_MS).toISOString();
  const events: DeploymentEvent[] = environments.map((environment) => ({ type: 'EnvironmentDeletionScheduled', data: { project_id: project.right.id, id: environment.id, auto_delete_at } }));
  return E.right(withOutcome(events, { environment_ids: environments.map((environment) => environment.id) } satisfies ReviewAppsOutcome));
};

/** `Environments::AutoDeleteCronWorker`: each `auto_deletable` environment is destroyed (its deployments with it). */
const decideDeleteAutoDeletable = (issued: Issued<Command<'DeleteAutoDeletableEnvironments'>>, state: State): Decided => {
  if (issued.actor.userId !== null) return E.left(forbidden());
  return E.right(autoDeletableEnvironments(state.deployments, issued.at).map((environment) => ({ type: 'EnvironmentDeleted', data: { project_id: environment.project_id, id: environment.id } })));
};

/**
 * `Deployments::CreateService`: the environment is found or created by name; a request equal to the environment's
 * last successful deployment (ref, tag, sha, status) returns it (no events); otherwise a new deployment starts as
 * `created` and moves to the requested status through the machine (every requested status leaves `created`).
 */
const decideCreateDeployment = (issued: Issued<Command<'CreateDeployment'>>, state: State): Decided => {
  const project = locateProject(state, issued, ['create_deployment', 'create_environment']);
  if (E.isLeft(project)) return project;
  const { command, at, actor } = issued;
  const events: DeploymentEvent[] = [];
  const environment = findEnvironmentByName(state.deployments, project.right.id, command.environment);
  let environmentId: number;
  if (environment) {
    environmentId = environment.id;
    const last = lastDeployment(state.deployments, environment);
    if (last && last.ref === command.ref && last.tag === command.tag && last.sha === command.sha && last.status === command.status) {
      return E.right(withOutcome([], { deployment_id: last.id } satisfies DeploymentOutcome));
    }
  } else {
    const checked = checkEnvironment(state, project.right.id, { name: command.environment }, null).toEither(null);
    if (E.isLeft(checked)) return checked;
    const created = environmentCreated(state, project.right.id, command.environment, null, at);
    events.push(created);
    environmentId = created.data.id;
  }
  const errors = new Errors();
  if (isRubyBlank(command.sha)) errors.add('sha', ENVIRONMENT_MESSAGES.blank);
  if (isRubyBlank(command.ref)) errors.add('ref', ENVIRONMENT_MESSAGES.blank);
  if (!command.sha_exists) errors.add('sha', DEPLOYMENT_MESSAGES.sha);
  if (!command.ref_exists) errors.add('ref', DEPLOYMENT_MESSAGES.ref);
  const checked = errors.toEither(null);
  if (E.isLeft(checked)) return checked;
  const id = state.deployments.sequences.deployment + 1;
  const iid = (projectDeployments(state.deployments, project.right.id)?.iid ?? 0) + 1;
  events.push({
    type: 'DeploymentCreated',
    data: { project_id: project.right.id, id, iid, environment_id: environmentId, ref: command.ref, tag: command.tag, sha: command.sha, status: command.status, user_id: actor.userId, created_at: at },
  });
  // A success (re)starts a stopped environment (`Deployments::UpdateEnvironmentService` fires `start`).
  if (command.status === 'success' && environment?.state === 'stopped') events.push({ type: 'EnvironmentStarted', data: { project_id: project.right.id, id: environmentId, at } });
  return E.right(withOutcome(events, { deployment_id: id } satisfies DeploymentOutcome));
};

/** `Deployment#update_status`: the requested status's event must be allowed from the current one. */
const decideUpdateDeploymentStatus = (issued: Issued<Command<'UpdateDeploymentStatus'>>, state: State): Decided => {
  // As the route: `read_deployment`, then `deployments.find` (404), then `update_deployment` on the deployment (403).
  const project = locateReadableProject(state, issued);
  if (E.isLeft(project)) return project;
  const deployment = findDeployment(state.deployments, project.right.id, issued.command.deployment_id);
  if (!deployment) return E.left(notFound(undefined, '404 Not found'));
  const allowed = authorizeProject(state, issued.actor.userId, 'update_deployment', project.right, null);
  if (E.isLeft(allowed)) return allowed;
  const step = transition(deployment.status, issued.command.status);
  if (!step.ok) return E.left(validation({ status: [DEPLOYMENT_MESSAGES.cannot_transition(step.event)] }));
  const events: DeploymentEvent[] = [
    { type: 'DeploymentStatusChanged', data: { project_id: project.right.id, id: deployment.id, from: deployment.status, to: issued.command.status, event: step.event, at: issued.at } },
  ];
  const environment = findEnvironment(state.deployments, project.right.id, deployment.environment_id);
  if (issued.command.status === 'success' && environment?.state === 'stopped') events.push({ type: 'EnvironmentStarted', data: { project_id: project.right.id, id: environment.id, at: issued.at } });
  return E.right(events);
};

export const decide = decideByType<DeploymentCommand, State, Decided>({
  CreateEnvironment: decideCreateEnvironment,
  UpdateEnvironment: decideUpdateEnvironment,
  StopEnvironment: decideStopEnvironment,
  DeleteEnvironment: decideDeleteEnvironment,
  ScheduleReviewAppsDeletion: decideScheduleReviewAppsDeletion,
  DeleteAutoDeletableEnvironments: decideDeleteAutoDeletable,
  CreateDeployment: decideCreateDeployment,
  UpdateDeploymentStatus: decideUpdateDeploymentStatus,
});
