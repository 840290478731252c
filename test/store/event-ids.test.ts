import { describe, expect, it } from 'vitest';
import { uuidv7Generator } from '@forgefold/sqlite-store';

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7Generator', () => {
  it('makes RFC 9562 version-7 ids that carry the millisecond and sort in generation order', () => {
    let ms = 1_790_000_000_000;
    const next = uuidv7Generator(() => ms);
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i % 1_000 === 0) ms += 1;
      ids.push(next());
    }
    for (const id of ids) expect(id).toMatch(UUIDV7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16)).toBe(1_790_000_000_001);
  });

  it('stays ordered when the clock stands still or goes back', () => {
    let ms = 1_790_000_000_000;
    const next = uuidv7Generator(() => ms);
    const ids = [next(), next()];
    ms -= 5_000;
    ids.push(next(), next());
    expect([...ids].sort()).toEqual(ids);
  });
});
