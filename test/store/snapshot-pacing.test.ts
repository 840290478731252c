import { describe, expect, it } from 'vitest';
// The decision is internal to the store (not part of its package's API): imported from its module.
import { yieldsAgain } from '../../packages/sqlite-store/src/snapshot-store.js';

// The snapshot encoder's pacing between its slices (a pure decision over measured times: no clock read here).
describe('yieldsAgain', () => {
  it('leaves a busy event loop at least as long as the slice took', () => {
    expect(yieldsAgain(4, 1.5, 1.5)).toBe(true);
    expect(yieldsAgain(4, 3.9, 2)).toBe(true);
    expect(yieldsAgain(4, 4, 2)).toBe(false);
    expect(yieldsAgain(6, 5, 3)).toBe(true);
  });

  it('goes on at once after a turn that found nothing to do, so a snapshot with no load is not slowed', () => {
    expect(yieldsAgain(4, 0.05, 0.05)).toBe(false);
    expect(yieldsAgain(4, 2, 0.1)).toBe(false);
  });
});
