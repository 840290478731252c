/**
 * Id sequences, like database sequences: ids are decided from them and recorded in events. The kernel owns
 * them; a module raises, through `advance`, the counters it draws its ids from (groups and personal
 * namespaces share `namespace`, as namespaces do on the platform).
 */
import type { Draft } from 'immer';

export interface Sequences {
  readonly user: number;
  /** Groups and personal namespaces share one sequence, as namespaces do on the platform. */
  readonly namespace: number;
  readonly project: number;
  readonly member: number;
  readonly token: number;
  readonly oauth: number;
}

export const initialSequences = (): Sequences => ({ user: 0, namespace: 0, project: 0, member: 0, token: 0, oauth: 0 });

/** Raises a sequence to at least `id` (evolve never trusts the order in which ids were drawn). */
export const advance = (state: { sequences: Draft<Sequences> }, sequence: keyof Sequences, id: number): void => {
  if (id > state.sequences[sequence]) state.sequences[sequence] = id;
};
