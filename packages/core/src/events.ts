/** Every event type of Forgefold: the union of the modules' events, derived from the module list. */
import type { EventOf } from './kernel/module.js';
import type { moduleList } from './forgefold.js';

export type ForgefoldEvent = EventOf<(typeof moduleList)[number]>;
