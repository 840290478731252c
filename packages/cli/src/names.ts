/**
 * Names for what the audit prints: usernames and full paths instead of ids. One fold of the log gives the
 * state now, optionally the state at a past moment (handed to a callback on the way), and the last names of
 * users, groups and projects deleted since, so that old history still reads by name.
 */
import {
  findGroup,
  findGroupByIdOrPath,
  findProject,
  findProjectByIdOrPath,
  findUser,
  findUserByIdOrUsername,
  foldLog,
  forgefold,
  type DomainEvent,
  type EventStore,
  type State,
} from '@forgefold/core';

export type Kind = 'user' | 'group' | 'project';

export interface NameBook {
  /** Username, group full path or project path as now, or as last known before its deletion. */
  name(kind: Kind, id: number): string | undefined;
  /** The id of a name as now, or of a deleted one's last name. */
  idOf(kind: Kind, name: string): number | undefined;
}

const nameIn = (state: State, kind: Kind, id: number): string | undefined =>
  kind === 'user' ? findUser(state.users, id)?.username : kind === 'group' ? findGroup(state.groups, id)?.full_path : findProject(state.projects, id)?.path_with_namespace;

/** Finds a user, group or project in a state by id, username or (full) path, as the API's `:id` does. */
export const findIn = (state: State, kind: Kind, value: string): number | undefined =>
  (kind === 'user' ? findUserByIdOrUsername(state.users, value) : kind === 'group' ? findGroupByIdOrPath(state.groups, value) : findProjectByIdOrPath(state.projects, value))?.id;

const DELETIONS: Readonly<Record<string, Kind>> = { UserDeleted: 'user', GroupDeleted: 'group', ProjectDeleted: 'project' };

export const foldWithNames = async (
  events: EventStore,
  at?: { readonly time: string; readonly visit: (state: State) => void },
): Promise<{ readonly state: State; readonly names: NameBook }> => {
  const deleted: Record<Kind, Map<number, string>> = { user: new Map(), group: new Map(), project: new Map() };
  const evolve = (state: State, event: DomainEvent): void => {
    const kind = DELETIONS[event.type];
    if (kind) {
      const id = (event.data as { id: number }).id;
      const name = nameIn(state, kind, id);
      if (name !== undefined) deleted[kind].set(id, name);
    }
    forgefold.decider.evolve(state, event);
  };
  const options = { decider: { evolve }, registry: forgefold.registry, store: events };
  let state = forgefold.decider.initialState();
  let position = 0;
  if (at) {
    ({ state, position } = await foldLog(options, state, 0, true, (recorded) => recorded.recordedAt <= at.time));
    at.visit(state);
  }
  ({ state } = await foldLog(options, state, position, true));
  const now = state;
  return {
    state: now,
    names: {
      name: (kind, id) => nameIn(now, kind, id) ?? deleted[kind].get(id),
      idOf: (kind, name) => {
        const found = findIn(now, kind, name);
        if (found !== undefined) return found;
        const lower = name.toLowerCase();
        for (const [id, last] of deleted[kind]) if (last.toLowerCase() === lower) return id;
        return undefined;
      },
    },
  };
};
