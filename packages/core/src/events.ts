/** Every event type of Forgefold, and the registry that decodes them. */
import { EventRegistry } from './kernel/events.js';
import { userEvents, type UserEvent } from './modules/users/events.js';
import { tokenEvents, type TokenEvent } from './modules/tokens/events.js';
import { groupEvents, type GroupEvent } from './modules/groups/events.js';
import { projectEvents, type ProjectEvent } from './modules/projects/events.js';
import { memberEvents, type MemberEvent } from './modules/members/events.js';
import { scimEvents, type ScimEvent } from './modules/scim/events.js';
import { repositoryEvents, type RepositoryEvent } from './modules/repositories/events.js';

export type ForgefoldEvent = UserEvent | TokenEvent | GroupEvent | ProjectEvent | MemberEvent | ScimEvent | RepositoryEvent;

export const eventRegistry = (): EventRegistry => new EventRegistry(userEvents, tokenEvents, groupEvents, projectEvents, memberEvents, scimEvents, repositoryEvents);
