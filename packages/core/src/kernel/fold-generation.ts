/**
 * How many times a state has been changed in place, process-wide. A batch's decisions read a state that the batch's
 * folds then change without replacing its slices (an immer draft keeps its proxies, a copy-on-write working copy is
 * edited and becomes the committed slice), and a startup replay folds in place too: a cache keyed on a slice's
 * identity (a WeakMap) is right only while this number has not moved since it was filled.
 */
let generation = 0;

export const foldGeneration = (): number => generation;

/** Called by every fold that changes a state in place. */
export const foldedInPlace = (): void => {
  generation++;
};
