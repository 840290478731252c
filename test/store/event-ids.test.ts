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

  it('spells the 16 bytes in lowercase hex, grouped 8-4-4-4-12 (the timestamp, version and counter where RFC 9562 puts them)', () => {
    const next = uuidv7Generator(() => 0x0123456789ab);
    const id = next();
    expect(id.slice(0, 13)).toBe('01234567-89ab');
    expect(id.slice(14, 15)).toBe('7');
    const second = next();
    // Same millisecond: the 12-bit counter (after the version digit) counts up by one.
    expect(parseInt(second.slice(15, 18), 16)).toBe(parseInt(id.slice(15, 18), 16) + 1);
    expect(Buffer.from(id.replace(/-/g, ''), 'hex')).toHaveLength(16);
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
