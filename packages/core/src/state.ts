/**
 * The whole projection state: the kernel's sequences and every module's slices, derived from the module list.
 * Only the composition (and the adapters) see it whole; a module reads what its view declares and writes its own
 * slices.
 */
import type { SlicesOf } from './kernel/module.js';
import type { Sequences } from './kernel/sequences.js';
import type { moduleList } from './forgefold.js';

export type { Sequences } from './kernel/sequences.js';

export type State = { readonly sequences: Sequences } & SlicesOf<(typeof moduleList)[number]>;
