/** A Forgefold application over the in-memory store with a controllable clock, for core tests. */
import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import {
  Application,
  InMemoryEventStore,
  forgefold,
  type Actor,
  type ForgefoldCommand,
  type State,
} from '@forgefold/core';

export const system: Actor = { userId: null, origin: 'system' };
export const as = (userId: number): Actor => ({ userId, origin: 'api' });

export const makeApp = async (start = '2026-01-01T00:00:00.000Z') => {
  let now = Date.parse(start);
  const store = new InMemoryEventStore();
  const app = await Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store,
    clock: { now: () => new Date(now).toISOString() },
    ids: { eventId: () => randomUUID() },
  });
  const run = async (actor: Actor, command: ForgefoldCommand) => {
    const result = await app.execute(actor, command);
    return result;
  };
  /** Executes and fails the test on a domain error. */
  const ok = async (actor: Actor, command: ForgefoldCommand) => {
    const result = await app.execute(actor, command);
    if (E.isLeft(result)) throw new Error(`${command.type} failed: ${JSON.stringify(result.left)}`);
    return result.right;
  };
  const advance = (ms: number) => {
    now += ms;
  };
  return { app, store, run, ok, advance };
};

export const userCommand = (username: string, extra: Partial<Extract<ForgefoldCommand, { type: 'CreateUser' }>> = {}): ForgefoldCommand => ({
  type: 'CreateUser',
  username,
  name: username.toUpperCase(),
  email: `${username}@example.com`,
  password_digest: null,
  ...extra,
});

/**
 * A user of the property tests' small worlds, named by a letter: the username is the letter twice (a namespace path
 * has at least two characters), the e-mail the letter's own (`a@example.com`, which invitations may name).
 */
export const letterUser = (letter: string, extra: Partial<Extract<ForgefoldCommand, { type: 'CreateUser' }>> = {}): ForgefoldCommand =>
  userCommand(letter.repeat(2), { email: `${letter}@example.com`, ...extra });
