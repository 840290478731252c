/**
 * The auth backend keeps the last token's answer while the tokens and users slices and the day are the same
 * (app/auth-backend.ts): what it answers must be what a fresh resolution answers, whatever happened between.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { findTokenByDigest, type ForgefoldCommand } from '@forgefold/core';
import { forgefoldAuthBackend, tokenDigest } from '@forgefold/http-adapter';
import { as, makeApp, system, userCommand } from '../core/fixtures.js';

describe('forgefoldAuthBackend', () => {
  it('answers a repeated token from its memo only while nothing that decides the answer changed', async () => {
    let now = '2026-01-01T10:00:00.000Z';
    const { app, ok } = await makeApp();
    const fresh = forgefoldAuthBackend(app, { now: () => now, impersonationEnabled: true });
    const memo = forgefoldAuthBackend(app, { now: () => now, impersonationEnabled: true });
    // Every answer of the memoising backend equals a backend that has seen nothing before (a new one per check).
    const check = (token: string) => {
      const expected = forgefoldAuthBackend(app, { now: () => now, impersonationEnabled: true }).authenticate(token, 'PRIVATE-TOKEN');
      expect(memo.authenticate(token, 'PRIVATE-TOKEN')).toEqual(expected);
      return expected;
    };
    const must = async (command: ForgefoldCommand, actor = system) => {
      const result = await app.execute(actor, command);
      if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
    };
    await ok(system, userCommand('alice', { is_admin: true }));
    await ok(system, userCommand('bob'));
    const token = (user: number, name: string, expires: string | null) =>
      must({ type: 'CreatePersonalAccessToken', user_id: user, name, scopes: ['api'], expires_at: expires, token_digest: tokenDigest(name), impersonation: false });
    await token(2, 'bob-token', '2026-01-02');
    await token(1, 'alice-token', null);
    expect(check('bob-token')).toMatchObject({ kind: 'ok', userId: 2 });
    // Kept: the same answer (the very object) after a write that touched neither slice.
    const first = memo.authenticate('bob-token', 'PRIVATE-TOKEN');
    await must({ type: 'CreateGroup', name: 'G', path: 'gg' }, as(2));
    expect(memo.authenticate('bob-token', 'PRIVATE-TOKEN')).toBe(first);
    expect(fresh.authenticate('bob-token', 'PRIVATE-TOKEN')).toEqual(first);
    // Another token in between, and back.
    expect(check('alice-token')).toMatchObject({ kind: 'ok', userId: 1, isAdmin: true });
    expect(check('bob-token')).toMatchObject({ kind: 'ok', userId: 2 });
    expect(check('nobody')).toEqual({ kind: 'unknown' });
    // The user blocked, then unblocked.
    await must({ type: 'BlockUser', id: 2 }, as(1));
    expect(check('bob-token')).toMatchObject({ kind: 'blocked' });
    await must({ type: 'UnblockUser', id: 2 }, as(1));
    expect(check('bob-token')).toMatchObject({ kind: 'ok', userId: 2 });
    // The day after its expiry date, without any write.
    now = '2026-01-03T00:00:00.000Z';
    expect(check('bob-token')).toEqual({ kind: 'expired' });
    // Revoked.
    expect(check('alice-token')).toMatchObject({ kind: 'ok' });
    const alice = findTokenByDigest(app.state.tokens, tokenDigest('alice-token'));
    await must({ type: 'RevokePersonalAccessToken', id: alice!.token.id }, as(1));
    expect(check('alice-token')).toEqual({ kind: 'revoked' });
  });
});
