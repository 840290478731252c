/** The crash test's toy domain: every command emits exactly three events, on two streams. */
import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { Application, EventRegistry, defineEvents, type Decider, type EventStore, type EventsOf, type SnapshotStore } from '@forgefold/core';

export const tripleEvents = defineEvents({
  Step: {
    codec: t.type({ commandId: t.string, account: t.string, step: t.Int }),
    version: 1,
    stream: (d: { account: string }) => `acct-${d.account}`,
  },
});
export type TripleEvent = EventsOf<typeof tripleEvents>;
export interface TripleCommand {
  readonly commandId: string;
  readonly account: string;
  readonly other: string;
}
export interface TripleState {
  perAccount: Record<string, number>;
  steps: number;
  lastCommand: string | null;
}

export const tripleDecider: Decider<TripleCommand, TripleEvent, TripleState> = {
  initialState: () => ({ perAccount: {}, steps: 0, lastCommand: null }),
  decide: ({ command }) => {
    const step = (account: string, n: number): TripleEvent => ({ type: 'Step', data: { commandId: command.commandId, account, step: n as t.Int } });
    return E.right([step(command.account, 0), step(command.other, 1), step(command.account, 2)]);
  },
  evolve: (state, event) => {
    state.perAccount[event.data.account] = (state.perAccount[event.data.account] ?? 0) + 1;
    state.steps++;
    if (event.data.step === 2) state.lastCommand = event.data.commandId;
  },
};

export const tripleRegistry = new EventRegistry(tripleEvents);

export const startTriple = (store: EventStore, snapshots?: SnapshotStore, snapshotEvery?: number) =>
  Application.start<TripleCommand, TripleState>({
    decider: tripleDecider as never,
    registry: tripleRegistry,
    store,
    snapshots,
    snapshotEvery,
    clock: { now: () => new Date().toISOString() },
    ids: { eventId: () => randomUUID() },
    projectionVersion: 'triple-1',
  });
