/**
 * The composed Forgefold decider: every module's decide and evolve behind one Decider over the whole
 * State, plus the event registry and the projection version that snapshots are keyed by.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Decider, Issued } from './kernel/decider.js';
import type { DomainEvent } from './kernel/envelope.js';
import { initialState, type ModuleDecider, type MutableState, type State } from './state.js';
import { eventRegistry, type ForgefoldEvent } from './events.js';
import { usersDecider } from './modules/users/decider.js';
import { findUser } from './modules/users/queries.js';
import { forbidden, unauthorized } from './kernel/domain-error.js';
import { tableSize } from './kernel/table.js';
import { userEvents } from './modules/users/events.js';
import type { UserCommand } from './modules/users/commands.js';
import { tokensDecider } from './modules/tokens/decider.js';
import { tokenEvents } from './modules/tokens/events.js';
import type { TokenCommand } from './modules/tokens/commands.js';
import { groupsDecider } from './modules/groups/decider.js';
import { groupEvents } from './modules/groups/events.js';
import type { GroupCommand } from './modules/groups/commands.js';
import { projectsDecider } from './modules/projects/decider.js';
import { projectEvents } from './modules/projects/events.js';
import type { ProjectCommand } from './modules/projects/commands.js';
import { membersDecider } from './modules/members/decider.js';
import { memberEvents } from './modules/members/events.js';
import type { MemberCommand } from './modules/members/commands.js';
import { scimDecider } from './modules/scim/decider.js';
import { scimEvents } from './modules/scim/events.js';
import type { ScimCommand } from './modules/scim/commands.js';
import { repositoriesDecider } from './modules/repositories/decider.js';
import { repositoryEvents } from './modules/repositories/events.js';
import type { RepositoryCommand } from './modules/repositories/commands.js';

export type ForgefoldCommand = UserCommand | TokenCommand | GroupCommand | ProjectCommand | MemberCommand | ScimCommand | RepositoryCommand;

type AnyModule = ModuleDecider<any, any>;

/** Which module decides each command: exhaustive, so a new command type without a module does not compile. */
const commandModules: Record<ForgefoldCommand['type'], AnyModule> = {
  CreateUser: usersDecider,
  UpdateUser: usersDecider,
  BlockUser: usersDecider,
  UnblockUser: usersDecider,
  DeleteUser: usersDecider,
  RecordUserActivity: usersDecider,
  CreatePersonalAccessToken: tokensDecider,
  RevokePersonalAccessToken: tokensDecider,
  CreateResourceAccessToken: tokensDecider,
  RevokeResourceAccessToken: tokensDecider,
  IssueOAuthToken: tokensDecider,
  RefreshOAuthToken: tokensDecider,
  CreateGroup: groupsDecider,
  UpdateGroup: groupsDecider,
  DeleteGroup: groupsDecider,
  CreateProject: projectsDecider,
  UpdateProject: projectsDecider,
  DeleteProject: projectsDecider,
  AddMember: membersDecider,
  AddMembers: membersDecider,
  UpdateMember: membersDecider,
  RemoveMember: membersDecider,
  InviteMembers: membersDecider,
  UpdateInvitation: membersDecider,
  RemoveInvitation: membersDecider,
  ShareGroup: membersDecider,
  UnshareGroup: membersDecider,
  ShareProject: membersDecider,
  UnshareProject: membersDecider,
  ApproveMember: membersDecider,
  ApproveAllMembers: membersDecider,
  SetMemberOverride: membersDecider,
  AddLdapGroupLink: membersDecider,
  RemoveLdapGroupLink: membersDecider,
  SyncLdapGroup: membersDecider,
  RemoveBillableMember: membersDecider,
  ExpireMemberships: membersDecider,
  ConfigureSamlProvider: scimDecider,
  RotateScimToken: scimDecider,
  ProvisionScimIdentity: scimDecider,
  UpdateScimIdentity: scimDecider,
  DeleteScimIdentity: scimDecider,
  EnsureRepository: repositoriesDecider,
  ChangeDefaultBranch: repositoriesDecider,
  UpdateRefs: repositoriesDecider,
  ProtectTag: repositoriesDecider,
  UnprotectTag: repositoriesDecider,
  ProtectBranch: repositoriesDecider,
  ProtectBranchLegacy: repositoriesDecider,
  UnprotectBranch: repositoriesDecider,
  CreateMergeRequest: repositoriesDecider,
  UpdateMergeRequest: repositoriesDecider,
  MergeMergeRequest: repositoriesDecider,
};

const eventModules = new Map<string, AnyModule>([
  ...Object.keys(userEvents).map((type) => [type, usersDecider] as [string, AnyModule]),
  ...Object.keys(tokenEvents).map((type) => [type, tokensDecider] as [string, AnyModule]),
  ...Object.keys(groupEvents).map((type) => [type, groupsDecider] as [string, AnyModule]),
  ...Object.keys(projectEvents).map((type) => [type, projectsDecider] as [string, AnyModule]),
  ...Object.keys(memberEvents).map((type) => [type, membersDecider] as [string, AnyModule]),
  ...Object.keys(scimEvents).map((type) => [type, scimDecider] as [string, AnyModule]),
  ...Object.keys(repositoryEvents).map((type) => [type, repositoriesDecider] as [string, AnyModule]),
]);

/** Modules that also follow another module's event (SCIM identities end with their user or group). */
const followers = new Map<string, readonly AnyModule[]>([
  ['UserDeleted', [scimDecider]],
  ['GroupDeleted', [scimDecider]],
  ['ProjectDeleted', [repositoriesDecider]],
]);

const decide = (issued: Issued<ForgefoldCommand>, state: State) => {
  // Every command runs as an existing, unblocked user (or the system); adapters check this too, but a
  // decision must never record an act by someone who cannot act.
  const actorId = issued.actor.userId;
  if (actorId !== null) {
    const actor = findUser(state.users, actorId);
    if (!actor) return E.left(unauthorized);
    if (actor.state !== 'active') return E.left(forbidden(`Your account has been ${actor.state}.`));
  }
  const module = commandModules[issued.command.type];
  return module ? module.decide(issued, state) : E.left({ _tag: 'BadRequest' as const, reason: `unknown command ${String(issued.command.type)}` });
};

const evolve = (state: State, event: DomainEvent): void => {
  eventModules.get(event.type)?.evolve(state as MutableState, event as ForgefoldEvent);
  for (const follower of followers.get(event.type) ?? []) follower.evolve(state as MutableState, event as ForgefoldEvent);
};

export const forgefoldDecider: Decider<ForgefoldCommand, DomainEvent, State> = { decide, evolve, initialState };

/**
 * Bump when a projection's shape or an evolve changes, so that snapshots taken by older code are
 * ignored and the log is refolded.
 */
export const PROJECTION_VERSION = 'forgefold-projections-6';

export const forgefold = { decider: forgefoldDecider, registry: eventRegistry(), projectionVersion: PROJECTION_VERSION } as const;

/** Counts of what exists, for `forgefold replay` and health output. */
export const summarize = (state: State): Record<string, number> => {
  const members = tableSize(state.members.byId);
  const tokens = tableSize(state.tokens.byId);
  return { users: state.users.count, groups: state.groups.count, projects: state.projects.count, members, access_tokens: tokens, merge_requests: tableSize(state.repositories.mergeRequests) };
};
