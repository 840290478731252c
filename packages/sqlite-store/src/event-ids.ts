/**
 * Event ids for this store: UUIDv7 (RFC 9562), i.e. a 48-bit millisecond timestamp followed by random bits.
 * The events table keeps a UNIQUE index on event_id; random (v4) ids land on a random page of that B-tree,
 * which on a log of a million events means a page miss per insert, while time-ordered ids append at its
 * right edge. Ids generated within one millisecond stay ordered through a 12-bit counter (method 1 of
 * RFC 9562 §6.2) seeded randomly each millisecond; ordering is a speed hint only, never relied upon.
 */
import { randomFillSync } from 'node:crypto';

const POOL_IDS = 256;
/** The hex digits' character codes, by value. */
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

export const uuidv7Generator = (now: () => number = Date.now): (() => string) => {
  const pool = Buffer.alloc(POOL_IDS * 10);
  let poolIndex = POOL_IDS;
  let lastMs = -1;
  let counter = 0;
  const bytes = Buffer.alloc(16);
  // The id's text is written into these 36 bytes and read back as one string: `toString('hex')`, five slices and
  // their concatenation made ~0.5 KB of strings per id (a group creation makes two).
  const text = Buffer.alloc(36);
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
    let to = 0;
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text[to++] = 0x2d; // '-'
      const byte = bytes[i]!;
      text[to++] = HEX_DIGITS[byte >>> 4]!;
      text[to++] = HEX_DIGITS[byte & 15]!;
    }
    return text.toString('latin1', 0, 36);
  };
};
