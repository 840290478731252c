/**
 * A childless group's `children` is one frozen array shared by all of them (issue 16, branch heapcensus2): a first
 * child replaces it, never writes into it, live, replayed, and after a snapshot whose decoding (`v8.deserialize` of a
 * trie leaf) may share one empty array between the groups of a node.
 */
import { describe, expect, it } from 'vitest';
import {
  Application,
  decodeState,
  encodeState,
  findGroup,
  forgefold,
  InMemorySnapshotStore,
  listGroups,
  stateHash,
  type ForgefoldCommand,
  type State,
} from '@forgefold/core';
import { as, makeApp, system, userCommand } from './fixtures.js';

const childrenOf = (state: State): Record<string, readonly number[]> => Object.fromEntries([...listGroups(state.groups)].map((group) => [group.path, group.children]));

describe('a group\'s children', () => {
  it('start shared and empty, and a first child (created or transferred in) is the parent\'s alone, live, replayed and after a snapshot', async () => {
    const { app, store, ok } = await makeApp();
    await ok(system, userCommand('alice'));
    for (const path of ['aa', 'bb', 'cc', 'dd']) await ok(as(1), { type: 'CreateGroup', name: path, path });
    const id = (state: State, path: string) => [...listGroups(state.groups)].find((group) => group.path === path)!.id;
    const [a, b, c, d] = ['aa', 'bb', 'cc', 'dd'].map((path) => id(app.state, path)) as [number, number, number, number];
    expect(findGroup(app.state.groups, a)!.children).toBe(findGroup(app.state.groups, b)!.children);
    expect(Object.isFrozen(findGroup(app.state.groups, a)!.children)).toBe(true);
    // A snapshot as the stores keep it (encoded and decoded), then a tail that gives groups their first children.
    const decoded = decodeState(Buffer.concat([...encodeState(app.state)])) as State;
    const snapshots = new InMemorySnapshotStore();
    await snapshots.save({ position: app.position, projectionVersion: forgefold.projectionVersion, state: decoded, takenAt: '2026-01-01T00:00:00.000Z' });
    await ok(as(1), { type: 'CreateGroup', name: 'a1', path: 'a1', parent_id: a });
    await ok(as(1), { type: 'CreateGroup', name: 'a2', path: 'a2', parent_id: a });
    await ok(as(1), { type: 'TransferGroup', id: c, parent_id: b });
    const expected = { aa: [id(app.state, 'a1'), id(app.state, 'a2')], bb: [c], cc: [], dd: [], a1: [], a2: [] };
    expect(childrenOf(app.state)).toEqual(expected);
    const start = (fromSnapshot: boolean) =>
      Application.start<ForgefoldCommand, State>({ ...forgefold, store, ...(fromSnapshot ? { snapshots } : {}), clock: { now: () => '' }, ids: { eventId: () => '' } });
    for (const restarted of [await start(false), await start(true)]) {
      expect(restarted.position).toBe(app.position);
      expect(childrenOf(restarted.state)).toEqual(expected);
      expect(stateHash(restarted.state)).toBe(stateHash(app.state));
      expect(findGroup(restarted.state.groups, d)!.children).toEqual([]);
    }
  });
});
