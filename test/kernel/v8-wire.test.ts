/**
 * The snapshot encoder's writer of V8's serialisation format (v8-wire.ts): what it writes, `v8.deserialize` reads back
 * as the value `v8.serialize` would have given; where V8's own choice of encoding does not depend on how it keeps the
 * value in memory, the bytes are `v8.serialize`'s; what it does not write, it declines.
 */
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { WireWriter } from '../../packages/core/src/kernel/v8-wire.js';

const writer = new WireWriter();
const written = (value: unknown): Buffer | null => {
  const length = writer.write(value);
  return length === null ? null : Buffer.from(writer.buffer.subarray(0, length));
};

const holey = (length: number, at: Record<number, unknown>): unknown[] => {
  const array: unknown[] = [];
  array.length = length;
  for (const [index, value] of Object.entries(at)) array[Number(index)] = value;
  return array;
};

describe('the V8 wire writer', () => {
  it('writes v8.serialize’s bytes for values V8 encodes one way only', () => {
    const values: unknown[] = [
      null,
      undefined,
      true,
      false,
      0,
      -0,
      1,
      -1,
      2 ** 31 - 1,
      -(2 ** 31),
      2 ** 31,
      1.5,
      Number.NaN,
      -Infinity,
      '',
      'abc',
      'é',
      '€',
      'a€',
      'ab€',
      '\ud800',
      'x'.repeat(127),
      'x'.repeat(128),
      'x'.repeat(20_000),
      `${'é'.repeat(200)}€`,
      [],
      [1, 'two', null],
      ['€', 'a€', ['ab€']],
      Array.from({ length: 300 }, (_, i) => i),
      { a: 1, b: 'x', c: [1, { d: null }] },
      { 1: 'a', b: 2, 0: 'z', '01': 'not an index', 4294967295: 'not an index either' },
      Object.assign(Object.create(null) as object, { x: 1 }),
    ];
    values.forEach((value, index) => expect(written(value)?.toString('hex'), `value ${index}`).toBe(v8.serialize(value).toString('hex')));
  });

  it('keeps holes and sparse arrays; writes an object met twice as two equal ones', () => {
    const shared = { s: 1 };
    const values: unknown[] = [holey(3, { 1: 'one' }), holey(5000, { 4999: [1], 7: shared, 8: shared }), [holey(2, {}), undefined]];
    for (const value of values) {
      const back = v8.deserialize(written(value)!) as unknown[];
      expect(back).toStrictEqual(v8.deserialize(v8.serialize(value)));
    }
    const back = v8.deserialize(written(values[1])!) as unknown[];
    expect(back[7]).toStrictEqual(back[8]);
    expect(back[7]).not.toBe(back[8]);
  });

  it('writes what v8.deserialize reads as v8.serialize’s value (property)', () => {
    fc.assert(
      fc.property(fc.anything({ withSparseArray: true, withNullPrototype: true, stringUnit: 'binary', maxDepth: 4 }), (value) => {
        const bytes = written(value);
        expect(bytes).not.toBeNull();
        expect(v8.deserialize(bytes!)).toStrictEqual(v8.deserialize(v8.serialize(value)));
      }),
      { numRuns: 500 },
    );
  });

  it('declines what it does not write, leaving it to v8.serialize', () => {
    class Entity {
      id = 1;
    }
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    for (const value of [cyclic, new Date(0), new Map([[1, 2]]), new Set([1]), 10n, new Uint8Array(2), new Entity(), [{ at: new Date(0) }], { nested: [new Map()] }]) {
      expect(writer.write(value)).toBeNull();
    }
    // A shared tree whose paths write out long (2^30 leaves here; V8 writes each object once), and a long value.
    let shared: unknown[] = [];
    for (let i = 0; i < 30; i++) shared = [shared, shared];
    expect(writer.write(shared)).toBeNull();
    expect(writer.write('x'.repeat(5_000_000))).toBeNull();
    expect(writer.write('x'.repeat(1_000_000))).toBe(2 + 1 + 3 + 1_000_000);
    // The buffer a large value grew is not kept.
    writer.write(1);
    expect(writer.buffer.length).toBeLessThanOrEqual(64 * 1024);
    // And writes the next value whole after declining one midway.
    expect(written([1, 'a'])!.equals(v8.serialize([1, 'a']))).toBe(true);
  });
});
