/**
 * A toy bank used by the kernel, store and crash tests: accounts with Opened/Deposited/Withdrawn events,
 * io-ts codecs, commands that emit one event, several events, or events on several streams.
 */
import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  Application,
  EventRegistry,
  conflict,
  defineEvents,
  notFound,
  type Actor,
  type Clock,
  type Decider,
  type EventStore,
  type EventsOf,
  type IdGenerator,
  type SnapshotStore,
} from '@forgefold/core';

export const bankEvents = defineEvents({
  AccountOpened: { codec: t.type({ accountId: t.string, owner: t.string }), version: 1, stream: (d: { accountId: string }) => `account-${d.accountId}` },
  Deposited: { codec: t.type({ accountId: t.string, amount: t.Int }), version: 1, stream: (d: { accountId: string }) => `account-${d.accountId}` },
  Withdrawn: { codec: t.type({ accountId: t.string, amount: t.Int }), version: 1, stream: (d: { accountId: string }) => `account-${d.accountId}` },
});
export type BankEvent = EventsOf<typeof bankEvents>;

export type BankCommand =
  | { readonly kind: 'open'; readonly accountId: string; readonly owner: string; readonly initial?: number }
  | { readonly kind: 'deposit'; readonly accountId: string; readonly amount: number }
  | { readonly kind: 'withdraw'; readonly accountId: string; readonly amount: number }
  | { readonly kind: 'transfer'; readonly from: string; readonly to: string; readonly amount: number };

export interface BankState {
  accounts: Record<string, { owner: string; balance: number; operations: number }>;
  events: number;
}

export const bankDecider: Decider<BankCommand, BankEvent, BankState> = {
  initialState: () => ({ accounts: {}, events: 0 }),
  decide: ({ command }, state) => {
    switch (command.kind) {
      case 'open': {
        if (state.accounts[command.accountId]) return E.left(conflict(`Account ${command.accountId} already exists`));
        const events: BankEvent[] = [{ type: 'AccountOpened', data: { accountId: command.accountId, owner: command.owner } }];
        if (command.initial) events.push({ type: 'Deposited', data: { accountId: command.accountId, amount: command.initial as t.Int } });
        return E.right(events);
      }
      case 'deposit':
        if (!state.accounts[command.accountId]) return E.left(notFound('Account'));
        return E.right([{ type: 'Deposited', data: { accountId: command.accountId, amount: command.amount as t.Int } }]);
      case 'withdraw': {
        const account = state.accounts[command.accountId];
        if (!account) return E.left(notFound('Account'));
        if (account.balance < command.amount) return E.left(conflict('Insufficient funds'));
        return E.right([{ type: 'Withdrawn', data: { accountId: command.accountId, amount: command.amount as t.Int } }]);
      }
      case 'transfer': {
        const from = state.accounts[command.from];
        if (!from || !state.accounts[command.to]) return E.left(notFound('Account'));
        if (from.balance < command.amount) return E.left(conflict('Insufficient funds'));
        return E.right([
          { type: 'Withdrawn', data: { accountId: command.from, amount: command.amount as t.Int } },
          { type: 'Deposited', data: { accountId: command.to, amount: command.amount as t.Int } },
        ]);
      }
    }
  },
  evolve: (state, event) => {
    state.events++;
    switch (event.type) {
      case 'AccountOpened':
        state.accounts[event.data.accountId] = { owner: event.data.owner, balance: 0, operations: 0 };
        return;
      case 'Deposited': {
        const account = state.accounts[event.data.accountId]!;
        account.balance += event.data.amount;
        account.operations++;
        return;
      }
      case 'Withdrawn': {
        const account = state.accounts[event.data.accountId]!;
        account.balance -= event.data.amount;
        account.operations++;
        return;
      }
    }
  },
};

export const bankRegistry = new EventRegistry(bankEvents);
export const clock: Clock = { now: () => new Date().toISOString() };
export const ids: IdGenerator = { eventId: () => randomUUID() };
export const actor: Actor = { userId: 1, origin: 'api' };

export const startBank = (store: EventStore, extra: { snapshots?: SnapshotStore; snapshotEvery?: number; maxBatch?: number; projectionVersion?: string; freeze?: boolean } = {}) =>
  Application.start<BankCommand, BankState>({
    decider: bankDecider as never,
    registry: bankRegistry,
    store,
    clock,
    ids,
    projectionVersion: extra.projectionVersion ?? 'bank-1',
    snapshots: extra.snapshots,
    snapshotEvery: extra.snapshotEvery,
    maxBatch: extra.maxBatch,
    freeze: extra.freeze,
  });

/** Plain-JSON copy of a state (immer-frozen or not) for deep equality. */
export const plain = <S>(state: S): S => JSON.parse(JSON.stringify(state)) as S;
