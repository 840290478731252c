export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export {
  membersDecider,
  memberAdded,
  memberAddedWithCap,
  removeMembershipsOfSources,
  removeMembershipsOfUser,
  removeLinksOfSources,
  acceptInvitations,
  resolveSource,
  canAdminSource,
  isMembershipLocked,
  planAddMembers,
  planInvitations,
  validateMembership,
  fullMessages,
  toSentence,
  expiryEvents,
  ldapSyncEvents,
  type ResolvedSource,
  type AddMembersPlan,
  type InvitePlan,
} from './decider.js';
export { onGroupCreated, onGroupDeleted, onGroupMoving, onProjectMoving, onUserStateChanging } from './indexes.js';
export { accessRequestsOf, accessRequestsOfUser, endAccessRequests, findAccessRequest } from './access-requests.js';
