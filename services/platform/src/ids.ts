import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";

/**
 * Random bytes for ids, filled 4 KB at a time: uuid's own source asks the system for 16 bytes
 * per id, a system call each.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
/** The last id's millisecond and counter (as uuid keeps them), so ids made in one millisecond still sort in order. */
const last = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

/** Time-ordered UUID (v7): ids sort by creation and keep b-tree inserts local. */
export function newId(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const random = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  const now = Date.now();
  if (now > last.msecs) {
    // A new millisecond: the counter starts at a random 31-bit value.
    last.seq =
      (((random[6] ?? 0) & 0x7f) << 24) | ((random[7] ?? 0) << 16) | ((random[8] ?? 0) << 8) | (random[9] ?? 0);
    last.msecs = now;
  } else {
    // The same millisecond (or the clock went back): the next counter value, overflowing into
    // the next millisecond.
    last.seq = (last.seq + 1) | 0;
    if (last.seq === 0) last.msecs++;
  }
  return v7({ random, msecs: last.msecs, seq: last.seq });
}

/** The smallest UUIDv7 of a moment: every id newId made at or after it sorts at or above it. */
export function firstIdAt(time: Date): string {
  const hex = Math.max(0, Math.floor(time.getTime())).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
