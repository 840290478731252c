/** Every event type of Forgefold: the union of the modules' events. */
import type { UserEvent } from './modules/users/events.js';
import type { TokenEvent } from './modules/tokens/events.js';
import type { GroupEvent } from './modules/groups/events.js';
import type { ProjectEvent } from './modules/projects/events.js';
import type { MemberEvent } from './modules/members/events.js';
import type { ScimEvent } from './modules/scim/events.js';

export type ForgefoldEvent = UserEvent | TokenEvent | GroupEvent | ProjectEvent | MemberEvent | ScimEvent;
