import { messages, protocol } from "@electric-sql/pglite";

// The wire messages of a prepared statement's run on PGlite, written and read directly: PGlite's
// own serializer and parser cost as much as a small statement's execution in the database.

const encoder = new TextEncoder();
// Execute (of the unnamed portal, all rows) and Sync: the same bytes every time.
const EXECUTE_SYNC = Uint8Array.of(0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4);

/**
 * Bind (the unnamed portal, text parameters and results), Execute and Sync for a named
 * statement, written into one buffer. PGlite's serializer builds each message with a growing
 * writer and a separate one for the parameters, a noticeable share of a small statement's time
 * on PGlite. A value that is not text goes through PGlite's serializer.
 */
export function bindExecuteSync(statement: string, values: readonly unknown[]): Uint8Array {
  // Bounds: UTF-16 code units become at most three bytes of UTF-8 each.
  let size = 1 + 4 + 1 + statement.length * 3 + 1 + 2 + 2 + 2 + EXECUTE_SYNC.length;
  for (const value of values) {
    if (value === null) size += 2 + 4;
    else if (typeof value === "string") size += 2 + 4 + value.length * 3;
    else
      return Buffer.concat([protocol.serialize.bind({ statement, values: values as (string | null)[] }), EXECUTE_SYNC]);
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

/** What a statement's replies come to: its rows (parsed by column type) and rows written. */
interface StatementReplies {
  rows: Record<string, unknown>[];
  affectedRows: number;
}

type Parsers = Record<number, ((text: string, typeId: number) => unknown) | undefined>;

/** A result column, as the statement's RowDescription gives it. */
interface Column {
  name: string;
  dataTypeID: number;
}

/**
 * Reads the backend's replies to a statement (Bind, Execute, Sync, after a BEGIN's replies when
 * `began`) straight from their bytes: its data rows become objects by `fields` (the statement's
 * row description) and `parsers`, as PGlite's result parser makes them; an ErrorResponse is
 * thrown as PGlite's DatabaseError with the same fields. PGlite's own path first builds an
 * object per message and then the rows from those.
 */
export function readReplies(
  bytes: Uint8Array,
  began: boolean,
  fields: readonly Column[],
  parsers: Parsers,
): StatementReplies {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rows: Record<string, unknown>[] = [];
  let affectedRows = 0;
  let error: messages.DatabaseError | undefined;
  let skipping = began;
  for (let at = 0; at + 5 <= buffer.length; ) {
    const type = buffer[at] as number;
    const length = buffer.readInt32BE(at + 1);
    // A message's length counts itself: under 4 bytes, or past the end, the replies are not the backend's.
    if (length < 4 || at + 1 + length > buffer.length) throw new Error("protocol error: malformed backend message");
    const end = at + 1 + length;
    const body = at + 5;
    at = end;
    if (skipping) {
      // The BEGIN's replies end with its ReadyForQuery.
      if (type === 0x5a) skipping = false;
      else if (type === 0x45) error ??= databaseError(buffer, body, end);
      continue;
    }
    if (type === 0x44 && error === undefined) rows.push(dataRow(buffer, body, end, fields, parsers));
    else if (type === 0x43) affectedRows += writtenRows(buffer.toString("utf8", body, end - 1));
    else if (type === 0x45) error ??= databaseError(buffer, body, end);
  }
  if (error) throw error;
  return { rows, affectedRows };
}

function dataRow(
  buffer: Buffer,
  at: number,
  end: number,
  fields: readonly Column[],
  parsers: Parsers,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const count = buffer.readInt16BE(at);
  let offset = at + 2;
  for (let i = 0; i < count; i++) {
    const length = offset + 4 <= end ? buffer.readInt32BE(offset) : Number.NaN;
    if (!(offset + 4 + Math.max(0, length) <= end)) throw new Error("protocol error: malformed data row");
    offset += 4;
    const field = fields[i];
    if (!field) throw new Error("A data row has more columns than its statement's row description");
    if (length < 0) {
      row[field.name] = null;
      continue;
    }
    const text = buffer.toString("utf8", offset, offset + length);
    offset += length;
    const parser = parsers[field.dataTypeID];
    row[field.name] = parser ? parser(text, field.dataTypeID) : text;
  }
  return row;
}

/** As PGlite counts a CommandComplete's rows: those INSERT, UPDATE, DELETE, COPY and MERGE wrote. */
function writtenRows(tag: string): number {
  const words = tag.split(" ");
  const count = Number.parseInt(words[words.length - 1] ?? "", 10);
  return ["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"].includes(words[0] ?? "") && !Number.isNaN(count) ? count : 0;
}

// ErrorResponse field codes -> DatabaseError properties, as PGlite's parser sets them.
const ERROR_FIELDS: Record<string, keyof messages.DatabaseError> = {
  S: "severity",
  C: "code",
  D: "detail",
  H: "hint",
  P: "position",
  p: "internalPosition",
  q: "internalQuery",
  W: "where",
  s: "schema",
  t: "table",
  c: "column",
  d: "dataType",
  n: "constraint",
  F: "file",
  L: "line",
  R: "routine",
};

function databaseError(buffer: Buffer, at: number, end: number): messages.DatabaseError {
  const values: Record<string, string> = {};
  for (let offset = at; offset < end && buffer[offset] !== 0; ) {
    const code = String.fromCharCode(buffer[offset] as number);
    const stop = buffer.indexOf(0, offset + 1);
    if (stop < 0 || stop >= end) break;
    values[code] = buffer.toString("utf8", offset + 1, stop);
    offset = stop + 1;
  }
  const error = new messages.DatabaseError(values.M ?? "", end - at + 4, "error");
  for (const [code, property] of Object.entries(ERROR_FIELDS)) {
    if (values[code] !== undefined) Object.assign(error, { [property]: values[code] });
  }
  return error;
}
