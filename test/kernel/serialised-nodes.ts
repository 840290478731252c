/**
 * Counts the table nodes the snapshot encoder serialises: written by its wire writer (see v8-wire.ts), or by
 * `v8.serialize` where the writer declines a value.
 */
import v8 from 'node:v8';
import { vi } from 'vitest';
import { WireWriter } from '../../packages/core/src/kernel/v8-wire.js';

export const spyOnSerialisedNodes = () => {
  const wire = vi.spyOn(WireWriter.prototype, 'write');
  const native = vi.spyOn(v8, 'serialize');
  return {
    /** Arrays serialised since the spy was made or last cleared. */
    count: (): number =>
      wire.mock.calls.filter(([value], i) => Array.isArray(value) && wire.mock.results[i]?.value !== null).length +
      native.mock.calls.filter(([value]) => Array.isArray(value)).length,
    clear: (): void => {
      wire.mockClear();
      native.mockClear();
    },
    restore: (): void => {
      wire.mockRestore();
      native.mockRestore();
    },
  };
};
