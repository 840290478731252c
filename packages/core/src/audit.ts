/**
 * Audit queries over the event log (beside the composition: they fold the whole log with every module): who had which access to what, when, and who granted it.
 * They read the log itself (not the projections), so they answer for any past moment.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { EventStore } from './kernel/ports.js';
import type { RecordedEvent } from './kernel/envelope.js';
import { foldLog } from './kernel/application.js';
import { tableValues } from './kernel/table.js';
import { forgefold } from './forgefold.js';
import type { State } from './state.js';
import { memberEvents } from './modules/members/events.js';
import { findGroup, selfAndAncestors } from './modules/groups/queries.js';
import { findProject } from './modules/projects/queries.js';
import { findUser } from './modules/users/queries.js';
import { effectiveGroupMember, effectiveProjectMembers, effectiveUserIds } from './modules/members/queries.js';
import type { Member, SourceType } from './modules/members/projection.js';
import { findEnvironmentByName, lastDeployment } from './modules/deployments/queries.js';

export interface AuditEntry {
  readonly position: number;
  readonly at: string;
  readonly event: string;
  readonly source_type: SourceType | null;
  readonly source_id: number | null;
  readonly user_id: number | null;
  readonly invite_email?: string | null;
  /** For shares: the invited group. */
  readonly group_id?: number;
  readonly access_level?: number;
  readonly from?: number;
  readonly expires_at?: string | null;
  readonly override?: boolean;
  readonly reason?: string;
  /** Who acted (the user whose permissions the request ran with), null for the system. */
  readonly actor_id: number | null;
  /** The administrator behind a sudo or impersonation request. */
  readonly sudo_from_id: number | null;
  readonly origin: string;
}

export interface HistoryFilter {
  readonly userId?: number;
  readonly groupId?: number;
  readonly projectId?: number;
  /** Also events on the group's subgroups and projects (needs the current state to know the hierarchy). */
  readonly includeDescendants?: { readonly state: State };
  readonly since?: string;
  readonly until?: string;
}

const MEMBER_EVENT_TYPES = new Set(Object.keys(memberEvents));

const toEntry = (recorded: RecordedEvent): AuditEntry | null => {
  if (!MEMBER_EVENT_TYPES.has(recorded.type)) return null;
  const decoded = forgefold.registry.decode(recorded);
  if (E.isLeft(decoded)) return null;
  const data = decoded.right.data as Record<string, unknown>;
  const pick = <T>(key: string): T | undefined => (key in data ? (data[key] as T) : undefined);
  const isLdap = recorded.type.startsWith('LdapGroupLink');
  return {
    position: recorded.globalPosition,
    at: recorded.recordedAt,
    event: recorded.type,
    source_type: isLdap ? 'Namespace' : (pick<SourceType>('source_type') ?? null),
    source_id: isLdap ? (pick<number>('group_id') ?? null) : (pick<number>('source_id') ?? null),
    user_id: pick<number | null>('user_id') ?? null,
    ...(pick('invite_email') !== undefined ? { invite_email: pick<string | null>('invite_email') } : {}),
    ...(!isLdap && pick('group_id') !== undefined ? { group_id: pick<number>('group_id') } : {}),
    ...(pick('access_level') !== undefined ? { access_level: pick<number>('access_level') } : {}),
    ...(pick('group_access') !== undefined ? { access_level: pick<number>('group_access') } : {}),
    ...(pick('to') !== undefined ? { access_level: pick<number>('to'), from: pick<number>('from') } : {}),
    ...(pick('expires_at') !== undefined ? { expires_at: pick<string | null>('expires_at') } : {}),
    ...(pick('override') !== undefined ? { override: pick<boolean>('override') } : {}),
    ...(pick('reason') !== undefined ? { reason: pick<string>('reason') } : {}),
    actor_id: recorded.metadata.actorId,
    sudo_from_id: recorded.metadata.sudoFromId ?? null,
    origin: recorded.metadata.origin,
  };
};

/** Membership history (memberships, invitations, shares, LDAP links) of a user or of a group/project, oldest first. */
export const membershipHistory = async (store: EventStore, filter: HistoryFilter): Promise<AuditEntry[]> => {
  const out: AuditEntry[] = [];
  let groupIds: Set<number> | null = null;
  let projectIds: Set<number> | null = null;
  if (filter.groupId !== undefined) {
    groupIds = new Set([filter.groupId]);
    projectIds = new Set();
    const state = filter.includeDescendants?.state;
    if (state) {
      for (const g of tableValues(state.groups.byId)) {
        if (selfAndAncestors(state.groups, g).some((a) => a.id === filter.groupId)) groupIds.add(g.id);
      }
      for (const p of tableValues(state.projects.byId)) {
        if (p.namespace_kind === 'group' && groupIds.has(p.namespace_id)) projectIds.add(p.id);
      }
    }
  }
  if (filter.projectId !== undefined) projectIds = new Set([...(projectIds ?? []), filter.projectId]);
  let after = 0;
  for (;;) {
    const page = await store.readAll(after, 5_000);
    if (page.length === 0) break;
    for (const recorded of page) {
      after = recorded.globalPosition;
      if (filter.since && recorded.recordedAt < filter.since) continue;
      if (filter.until && recorded.recordedAt > filter.until) continue;
      const entry = toEntry(recorded);
      if (!entry) continue;
      if (filter.userId !== undefined && entry.user_id !== filter.userId) continue;
      if (groupIds || projectIds) {
        const bySource = entry.source_type === 'Namespace' ? groupIds?.has(entry.source_id!) : projectIds?.has(entry.source_id!);
        // A share of the group into something else is also part of its history.
        const asInvited = entry.group_id !== undefined && groupIds?.has(entry.group_id);
        if (!bySource && !asInvited) continue;
      }
      out.push(entry);
    }
    if (page.length < 5_000) break;
  }
  return out;
};

export interface MemberAsOf {
  readonly user_id: number;
  readonly username: string | null;
  readonly access_level: number;
  readonly state: string;
  readonly expires_at: string | null;
  /** "direct", "inherited" (from an ancestor group) or "shared" (through a group shared into the source). */
  readonly membership: 'direct' | 'inherited' | 'shared';
  readonly source_type: SourceType;
  readonly source_id: number;
  readonly created_at: string;
  readonly created_by_id: number | null;
}

/** The projections as they were at a past time: the log folded up to (and including) `at`. */
export const stateAsOf = async (store: EventStore, at: string): Promise<{ state: State; position: number }> =>
  foldLog({ decider: forgefold.decider, registry: forgefold.registry, store }, forgefold.decider.initialState(), 0, true, (recorded) => recorded.recordedAt <= at);

/** Effective members of a group or project as of a past time (`/members/all` semantics then; expired rows excluded). */
export const membersAsOf = async (store: EventStore, source: { type: SourceType; id: number }, at: string): Promise<MemberAsOf[] | null> => {
  const { state } = await stateAsOf(store, at);
  const today = at.slice(0, 10);
  const describe = (member: Member, viaGroup: number | null): MemberAsOf => ({
    user_id: member.user_id!,
    username: findUser(state.users, member.user_id!)?.username ?? null,
    access_level: member.access_level,
    state: member.state,
    expires_at: member.expires_at,
    membership: member.source_type === source.type && member.source_id === source.id ? 'direct' : viaGroup !== null && member.source_id === viaGroup ? 'inherited' : 'shared',
    source_type: member.source_type,
    source_id: member.source_id,
    created_at: member.created_at,
    created_by_id: member.created_by_id,
  });
  if (source.type === 'Namespace') {
    const group = findGroup(state.groups, source.id);
    if (!group) return null;
    const chain = new Set(selfAndAncestors(state.groups, group).map((g) => g.id));
    const out: MemberAsOf[] = [];
    for (const userId of effectiveUserIds(state.members, group.id)) {
      const member = effectiveGroupMember(state, group, userId, today);
      if (member) out.push(describe(member, chain.has(member.source_id) && member.source_type === 'Namespace' ? member.source_id : null));
    }
    return out;
  }
  const project = findProject(state.projects, source.id);
  if (!project) return null;
  const chain = new Set<number>();
  if (project.namespace_kind === 'group') {
    const group = findGroup(state.groups, project.namespace_id);
    if (group) for (const g of selfAndAncestors(state.groups, group)) chain.add(g.id);
  }
  return effectiveProjectMembers(state, project, () => true, today).map((m) => describe(m, m.source_type === 'Namespace' && chain.has(m.source_id) ? m.source_id : null));
};

// ---------------------------------------------------------------------------------------------------------------
// Deployments: what was deployed where, when, by whom

export interface DeploymentAuditEntry {
  readonly position: number;
  readonly at: string;
  /** `DeploymentCreated`, `DeploymentStatusChanged`, or an environment's event. */
  readonly event: string;
  readonly project_id: number;
  readonly environment: string | null;
  readonly deployment_id: number | null;
  readonly iid: number | null;
  readonly ref: string | null;
  readonly sha: string | null;
  /** The deployment's status after the event (null for environment events). */
  readonly status: string | null;
  readonly from: string | null;
  readonly actor_id: number | null;
  readonly sudo_from_id: number | null;
  readonly origin: string;
}

/** One step of a thread's history: started, a reply, an edit, a deletion, resolved or unresolved, and by whom. */
export interface ThreadEntry {
  readonly position: number;
  readonly at: string;
  readonly event: string;
  readonly note_ids: readonly number[];
  /** The text written (thread started, reply, edit). */
  readonly body?: string;
  readonly actor_id: number | null;
  readonly sudo_from_id: number | null;
  readonly origin: string;
}

const DEPLOYMENT_EVENT_TYPES = new Set(['DeploymentCreated', 'DeploymentStatusChanged', 'EnvironmentCreated', 'EnvironmentUpdated', 'EnvironmentStopped', 'EnvironmentStarted', 'EnvironmentDeleted', 'EnvironmentDeletionScheduled']);

interface DeploymentFacts {
  readonly iid: number;
  readonly environment_id: number;
  readonly ref: string;
  readonly sha: string;
}

/** Every deployment and environment event of a project (optionally one environment by name), oldest first. */
export const deploymentHistory = async (
  store: EventStore,
  filter: { readonly projectId: number; readonly environment?: string; readonly since?: string; readonly until?: string },
): Promise<DeploymentAuditEntry[]> => {
  const out: DeploymentAuditEntry[] = [];
  const environments = new Map<number, string>();
  const deployments = new Map<number, DeploymentFacts>();
  let after = 0;
  for (;;) {
    const page = await store.readAll(after, 5_000);
    for (const recorded of page) {
      after = recorded.globalPosition;
      if (!DEPLOYMENT_EVENT_TYPES.has(recorded.type)) continue;
      const data = recorded.data as Record<string, unknown>;
      if (data['project_id'] !== filter.projectId) continue;
      // Names and deployment facts are tracked from the start, whatever the time window.
      if (recorded.type === 'EnvironmentCreated' || (recorded.type === 'EnvironmentUpdated' && typeof data['name'] === 'string')) environments.set(data['id'] as number, data['name'] as string);
      if (recorded.type === 'DeploymentCreated') {
        deployments.set(data['id'] as number, { iid: data['iid'] as number, environment_id: data['environment_id'] as number, ref: data['ref'] as string, sha: data['sha'] as string });
      }
      if ((filter.since && recorded.recordedAt < filter.since) || (filter.until && recorded.recordedAt > filter.until)) continue;
      const isDeployment = recorded.type.startsWith('Deployment');
      const facts = isDeployment ? deployments.get(data['id'] as number) : undefined;
      const environmentId = isDeployment ? facts?.environment_id : (data['id'] as number);
      const environment = environmentId === undefined ? null : (environments.get(environmentId) ?? null);
      if (filter.environment !== undefined && environment !== filter.environment) continue;
      out.push({
        position: recorded.globalPosition,
        at: recorded.recordedAt,
        event: recorded.type,
        project_id: filter.projectId,
        environment,
        deployment_id: isDeployment ? (data['id'] as number) : null,
        iid: facts?.iid ?? null,
        ref: facts?.ref ?? null,
        sha: facts?.sha ?? null,
        status: isDeployment ? ((data['status'] ?? data['to']) as string) : null,
        from: recorded.type === 'DeploymentStatusChanged' ? (data['from'] as string) : null,
        actor_id: recorded.metadata.actorId ?? null,
        sudo_from_id: recorded.metadata.sudoFromId ?? null,
        origin: recorded.metadata.origin,
      });
    }
    if (page.length < 5_000) break;
  }
  return out;
};

export interface DeployedAsOf {
  readonly project_id: number;
  readonly environment: string;
  readonly deployment_id: number;
  readonly iid: number;
  readonly ref: string;
  readonly sha: string;
  readonly tag: boolean;
  /** When the deployment became the environment's successful one, and who made it so (the deployer, or who marked it a success). */
  readonly deployed_at: string;
  readonly deployed_by_id: number | null;
  readonly sudo_from_id: number | null;
  /** Who created the deployment (`user`). */
  readonly user_id: number | null;
}

/**
 * What was deployed to an environment at a past time: its last successful deployment then (`last_deployment` of
 * the projections folded up to `at`), with when and by whom it became a success. Null: no environment of that name
 * then, or nothing deployed successfully yet.
 */
export const deployedAsOf = async (store: EventStore, projectId: number, environmentName: string, at: string): Promise<DeployedAsOf | null> => {
  const { state } = await stateAsOf(store, at);
  const environment = findEnvironmentByName(state.deployments, projectId, environmentName);
  const deployment = environment ? lastDeployment(state.deployments, environment) : undefined;
  if (!environment || !deployment) return null;
  // The latest event up to `at` that made this deployment a success.
  let success: RecordedEvent | null = null;
  let after = 0;
  for (;;) {
    const page = await store.readAll(after, 5_000);
    for (const recorded of page) {
      after = recorded.globalPosition;
      if (recorded.recordedAt > at) continue;
      const data = recorded.data as Record<string, unknown>;
      if (data['id'] !== deployment.id || data['project_id'] !== projectId) continue;
      if ((recorded.type === 'DeploymentCreated' && data['status'] === 'success') || (recorded.type === 'DeploymentStatusChanged' && data['to'] === 'success')) success = recorded;
    }
    if (page.length < 5_000) break;
  }
  return {
    project_id: projectId,
    environment: environment.name,
    deployment_id: deployment.id,
    iid: deployment.iid,
    ref: deployment.ref,
    sha: deployment.sha,
    tag: deployment.tag,
    deployed_at: success?.recordedAt ?? deployment.finished_at ?? deployment.updated_at,
    deployed_by_id: success?.metadata.actorId ?? deployment.user_id,
    sudo_from_id: success?.metadata.sudoFromId ?? null,
    user_id: deployment.user_id,
  };
};

/**
 * A thread's history from its stream (`discussion-<id>`), oldest first. A thread a system note started (a
 * noteable's change, not a command of the discussions module) has no stream until someone replies to it.
 */
export const threadHistory = async (store: EventStore, discussionId: string): Promise<ThreadEntry[]> => {
  const out: ThreadEntry[] = [];
  for (const recorded of await store.readStream(`discussion-${discussionId}`)) {
    const decoded = forgefold.registry.decode(recorded);
    if (E.isLeft(decoded)) continue;
    const data = decoded.right.data as { note?: { id: number; body: string }; note_id?: number; note_ids?: number[]; body?: string };
    const body = data.note?.body ?? data.body;
    out.push({
      position: recorded.globalPosition,
      at: recorded.recordedAt,
      event: recorded.type,
      note_ids: data.note ? [data.note.id] : data.note_id !== undefined ? [data.note_id] : (data.note_ids ?? []),
      ...(body !== undefined ? { body } : {}),
      actor_id: recorded.metadata.actorId,
      sudo_from_id: recorded.metadata.sudoFromId ?? null,
      origin: recorded.metadata.origin,
    });
  }
  return out;
};

/** One recorded change of the application settings: who, when, which fields from what to what (secrets filtered). */
export interface SettingsAuditEntry {
  readonly position: number;
  readonly at: string;
  readonly changes: readonly { readonly field: string; readonly old: unknown; readonly new: unknown }[];
  readonly actor_id: number | null;
  readonly sudo_from_id: number | null;
  readonly origin: string;
}

/** Every `SettingsChanged` in the log, oldest first; `field` keeps the entries that changed it (and only that change). */
export const settingsHistory = async (store: EventStore, filter: { readonly field?: string; readonly since?: string; readonly until?: string } = {}): Promise<SettingsAuditEntry[]> => {
  const out: SettingsAuditEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await store.readAll(after, 5_000);
    for (const recorded of page) {
      after = recorded.globalPosition;
      if (recorded.type !== 'SettingsChanged') continue;
      if ((filter.since && recorded.recordedAt < filter.since) || (filter.until && recorded.recordedAt > filter.until)) continue;
      const data = recorded.data as { changes: SettingsAuditEntry['changes']; at: string };
      const changes = filter.field === undefined ? data.changes : data.changes.filter((change) => change.field === filter.field);
      if (changes.length === 0) continue;
      out.push({ position: recorded.globalPosition, at: data.at, changes, actor_id: recorded.metadata.actorId, sudo_from_id: recorded.metadata.sudoFromId ?? null, origin: recorded.metadata.origin });
    }
    if (page.length < 5_000) break;
  }
  return out;
};
