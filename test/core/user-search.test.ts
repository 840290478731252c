/** `User.search` (Gitlab::SQL::Pattern#fuzzy_arel_match) as `matchesUserSearch` implements it. */
import { describe, expect, it } from 'vitest';
import { matchesUserSearch, type User } from '@forgefold/core';

const user = (name: string, username: string, email = `${username}@example.com`): User =>
  ({ id: 2, username, name, email, public_email: null, is_admin: false, state: 'active', identities: [] }) as unknown as User;

describe('matchesUserSearch: quoted phrases', () => {
  it('a phrase in quotes is one word only when it stands alone (REGEX_QUOTED_WORD: start or a space before, end or a space after)', () => {
    const abc = user('Abc Def', 'abcdef');
    expect(matchesUserSearch(abc, '"abc def"')).toBe(true);
    expect(matchesUserSearch(abc, 'zz "abc def"')).toBe(true);
    // Not standing alone: split on spaces, quotes kept, so `x"abc` and `def"` must both occur.
    expect(matchesUserSearch(abc, 'x"abc def"')).toBe(false);
    expect(matchesUserSearch(abc, '"abc def"x')).toBe(false);
    expect(matchesUserSearch(user('x"abc def"', 'quoted'), 'x"abc def"')).toBe(true);
  });
});
