import { protocol } from "@electric-sql/pglite";

const encoder = new TextEncoder();
// Execute (of the unnamed portal, all rows) and Sync: the same bytes every time.
const EXECUTE_SYNC = Uint8Array.of(0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4);

/**
 * Bind (the unnamed portal, text parameters and results), Execute and Sync for a named
 * statement, written into one buffer. PGlite's serializer builds each message with a growing
 * writer and a separate one for the parameters: on PGlite, where a statement's execution is a
 * few tens of microseconds, that was about a tenth of a small statement's time. A value that
 * is not text goes through PGlite's serializer.
 */
export function bindExecuteSync(statement: string, values: readonly unknown[]): Uint8Array {
  // Bounds: UTF-16 code units become at most three bytes of UTF-8 each.
  let size = 1 + 4 + 1 + statement.length * 3 + 1 + 2 + 2 + 2 + EXECUTE_SYNC.length;
  for (const value of values) {
    if (value === null) size += 2 + 4;
    else if (typeof value === "string") size += 2 + 4 + value.length * 3;
    else return concat([protocol.serialize.bind({ statement, values: values as (string | null)[] }), EXECUTE_SYNC]);
  }
  const buffer = new Uint8Array(size);
  const view = new DataView(buffer.buffer);
  buffer[0] = 0x42; // 'B', its length at 1..4
  let at = 5;
  buffer[at++] = 0; // unnamed portal
  at += encoder.encodeInto(statement, buffer.subarray(at)).written;
  buffer[at++] = 0;
  // A format code per parameter, all text (0: the buffer is zeroed), then their count again.
  view.setInt16(at, values.length);
  at += 2 + 2 * values.length;
  view.setInt16(at, values.length);
  at += 2;
  for (const value of values as readonly (string | null)[]) {
    if (value === null) {
      view.setInt32(at, -1);
      at += 4;
      continue;
    }
    const written = encoder.encodeInto(value, buffer.subarray(at + 4)).written;
    view.setInt32(at, written);
    at += 4 + written;
  }
  view.setInt16(at, 0); // no result format codes: all text
  at += 2;
  view.setInt32(1, at - 1);
  buffer.set(EXECUTE_SYNC, at);
  return buffer.subarray(0, at + EXECUTE_SYNC.length);
}

/** The messages one after another, in one buffer. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const message = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}
