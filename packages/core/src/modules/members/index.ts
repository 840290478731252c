export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './builders.js';
export { membersModule } from './module.js';
export {
  resolveSource,
  addMembersOutcome,
  inviteOutcome,
  type ResolvedSource,
  type AddMembersOutcome,
  type InviteOutcome,
  type MembersView,
} from './decider.js';
