/**
 * Event ids for this store: UUIDv7 (RFC 9562), i.e. a 48-bit millisecond timestamp followed by random bits.
 * The events table keeps a UNIQUE index on event_id; random (v4) ids land on a random page of that B-tree,
 * which on a log of a million events means a page miss per insert, while time-ordered ids append at its
 * right edge. Ids generated within one millisecond stay ordered through a 12-bit counter (method 1 of
 * RFC 9562 §6.2) seeded randomly each millisecond; ordering is a speed hint only, never relied upon.
 */
import { randomFillSync } from 'node:crypto';

const POOL_IDS = 256;

export const uuidv7Generator = (now: () => number = Date.now): (() => string) => {
  const pool = Buffer.alloc(POOL_IDS * 10);
  let poolIndex = POOL_IDS;
  let lastMs = -1;
  let counter = 0;
  const bytes = Buffer.alloc(16);
  return () => {
    if (poolIndex === POOL_IDS) {
      randomFillSync(pool);
      poolIndex = 0;
    }
    // Offsets into the pool rather than a subarray: a Buffer view per id was most of what an id allocated.
    const at = poolIndex * 10;
    poolIndex++;
    let ms = now();
    if (ms > lastMs) {
      lastMs = ms;
      counter = ((pool[at]! & 0x07) << 8) | pool[at + 1]!; // start in the lower half, leaving room to count up
    } else {
      ms = lastMs; // the clock went back or stood still: keep the order
      counter++;
      if (counter > 0xfff) {
        lastMs = ++ms; // borrow the next millisecond rather than wrap
        counter = 0;
      }
    }
    bytes.writeUIntBE(ms, 0, 6);
    bytes[6] = 0x70 | (counter >>> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (pool[at + 2]! & 0x3f);
    pool.copy(bytes, 9, at + 3, at + 10);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
};
