import { randomBytes } from 'node:crypto';

let lastMs = -1;
let seq = 0;

/**
 * A UUIDv7 (RFC 9562 §5.7): 48-bit Unix milliseconds, version 7, a 12-bit counter in `rand_a`
 * (RFC 9562 §6.2 method 1) and 62 random bits. Ids made by one process are strictly increasing
 * even within one millisecond, so `GSI1SK = id` is creation order and a list cursor is the last id.
 * Uses the wall clock, not the injectable `now`: ids must stay unique and ordered under a frozen
 * test clock.
 */
export function uuidv7(ms: number = Date.now()): string {
  if (ms > lastMs) {
    lastMs = ms;
    // Start each millisecond at a random point of the lower half, leaving room to count up.
    seq = randomBytes(2).readUInt16BE(0) & 0x7ff;
  } else {
    seq += 1;
    if (seq > 0xfff) {
      // Counter exhausted (4096 ids in one ms): borrow the next millisecond.
      lastMs += 1;
      seq = 0;
    }
  }
  const b = randomBytes(16);
  const t = lastMs;
  b[0] = Math.floor(t / 2 ** 40) & 0xff;
  b[1] = Math.floor(t / 2 ** 32) & 0xff;
  b[2] = (t >>> 24) & 0xff;
  b[3] = (t >>> 16) & 0xff;
  b[4] = (t >>> 8) & 0xff;
  b[5] = t & 0xff;
  b[6] = 0x70 | ((seq >>> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
