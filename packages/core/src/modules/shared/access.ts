/** Access levels and visibility, as the platform numbers and names them. */
import { tableDelete, tableIds, tableSet, type Table } from '../../kernel/table.js';

export const AccessLevel = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

export type AccessLevel = (typeof AccessLevel)[keyof typeof AccessLevel];

/** Levels a membership may hold (`Gitlab::Access.all_values`); projects stop at MAINTAINER (`values`). */
export const GROUP_ACCESS_LEVELS: readonly number[] = [10, 20, 30, 40, 50];
export const PROJECT_ACCESS_LEVELS: readonly number[] = [10, 20, 30, 40];

const HUMAN: Record<number, string> = {
  0: 'No access',
  5: 'Minimal Access',
  10: 'Guest',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

export const humanAccess = (level: number): string => HUMAN[level] ?? String(level);

export type Visibility = 'private' | 'internal' | 'public';
export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];
const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };
export const visibilityRank = (visibility: Visibility): number => VISIBILITY_RANK[visibility];

/** The visibility sets a groups or projects slice keeps (ids of its public and of its internal entries). */
interface VisibilitySets {
  readonly publicIds: Table<1>;
  readonly internalIds: Table<1>;
}

/** Moves an id between the visibility sets (`before` null: new; `after` null: removed). Called from evolve. */
export const placeByVisibility = (sets: VisibilitySets, id: number, before: Visibility | null, after: Visibility | null): void => {
  if (before === after) return;
  if (before === 'public') tableDelete(sets.publicIds, id);
  if (before === 'internal') tableDelete(sets.internalIds, id);
  if (after === 'public') tableSet(sets.publicIds, id, 1);
  if (after === 'internal') tableSet(sets.internalIds, id, 1);
};

/**
 * Ids of the entries every caller sees by visibility alone: the public ones, and for a signed-in caller the
 * internal ones too (ascending within each set).
 */
export function* idsVisibleToAll(sets: VisibilitySets, signedIn: boolean): Generator<number> {
  yield* tableIds(sets.publicIds);
  if (signedIn) yield* tableIds(sets.internalIds);
}
