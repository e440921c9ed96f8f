import { ScalarType, create, fromJson, toJson, type DescField, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { StructSchema, TimestampSchema, ValueSchema, timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumJsonValues, enumToJson, expectedList, fieldRules, TIMESTAMP_RANGE_MESSAGE, timestampInRange, violation, type Violation } from "@voiceops/platform";

// JSON <-> protobuf for the REST API. Unlike the canonical proto3 JSON mapping, field names are
// the proto (snake_case) names, enums use their short spelling, int64 are JSON numbers, and
// unset optional fields are written as null, as the API's clients expect.

type AnyMessage = Record<string, unknown>;

const INT32_TYPES = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32_TYPES = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const INT64_TYPES = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64]);
const UINT64_TYPES = new Set([ScalarType.UINT64, ScalarType.FIXED64]);
const FLOAT_TYPES = new Set([ScalarType.DOUBLE, ScalarType.FLOAT]);

const TRUE_WORDS = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off", "f", "n"]);
const INTEGER_TEXT = /^[+-]?\d+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

export type Parsed = { ok: true; value: unknown } | { ok: false; violation: Violation };

function fail(path: string, type: string, message: string, input: unknown): Parsed {
  return { ok: false, violation: violation(path, type, message, input) };
}

function parseInteger(path: string, field: DescField, input: unknown): Parsed {
  let value: number;
  if (typeof input === "number") {
    if (!Number.isInteger(input)) return fail(path, "int_from_float", "Input should be a valid integer, got a number with a fractional part", input);
    value = input;
  } else if (typeof input === "string" && INTEGER_TEXT.test(input.trim())) {
    value = Number(input.trim());
  } else if (typeof input === "string") {
    return fail(path, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", input);
  } else {
    return fail(path, "int_type", "Input should be a valid integer", input);
  }
  const scalar = field.scalar ?? ScalarType.INT32;
  const rules = fieldRules(field);
  // Out-of-type-range values are reported as the declared bound (or the type's) would be.
  if (INT32_TYPES.has(scalar) || UINT32_TYPES.has(scalar)) {
    const max = UINT32_TYPES.has(scalar) ? 4_294_967_295 : 2_147_483_647;
    const min = UINT32_TYPES.has(scalar) ? 0 : -2_147_483_648;
    if (value > max) return fail(path, "less_than_equal", `Input should be less than or equal to ${rules?.max ?? max}`, input);
    if (value < min) return fail(path, "greater_than_equal", `Input should be greater than or equal to ${rules?.min ?? min}`, input);
    return { ok: true, value };
  }
  if (!Number.isSafeInteger(value)) return fail(path, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", input);
  if (UINT64_TYPES.has(scalar) && value < 0) return fail(path, "greater_than_equal", "Input should be greater than or equal to 0", input);
  return { ok: true, value: BigInt(value) };
}

function parseScalar(path: string, field: DescField, input: unknown): Parsed {
  const scalar = field.scalar ?? ScalarType.STRING;
  if (scalar === ScalarType.STRING) {
    return typeof input === "string" ? { ok: true, value: input } : fail(path, "string_type", "Input should be a valid string", input);
  }
  if (scalar === ScalarType.BOOL) {
    if (typeof input === "boolean") return { ok: true, value: input };
    const word = typeof input === "string" ? input.trim().toLowerCase() : typeof input === "number" ? String(input) : undefined;
    if (word !== undefined && TRUE_WORDS.has(word)) return { ok: true, value: true };
    if (word !== undefined && FALSE_WORDS.has(word)) return { ok: true, value: false };
    return fail(path, "bool_parsing", "Input should be a valid boolean, unable to interpret input", input);
  }
  if (FLOAT_TYPES.has(scalar)) {
    const value = typeof input === "number" ? input : typeof input === "string" && input.trim() !== "" ? Number(input) : Number.NaN;
    return Number.isFinite(value) ? { ok: true, value } : fail(path, "float_parsing", "Input should be a valid number, unable to parse string as a number", input);
  }
  if (INT32_TYPES.has(scalar) || UINT32_TYPES.has(scalar) || INT64_TYPES.has(scalar) || UINT64_TYPES.has(scalar)) {
    return parseInteger(path, field, input);
  }
  if (scalar === ScalarType.BYTES) {
    return typeof input === "string" ? { ok: true, value: new Uint8Array(Buffer.from(input, "base64")) } : fail(path, "bytes_type", "Input should be a valid bytes", input);
  }
  return fail(path, "type_error", "Unsupported value", input);
}

export function parseTimestamp(path: string, input: unknown): Parsed {
  if (typeof input !== "string" || !RFC3339.test(input.trim())) {
    return fail(path, "datetime_parsing", "Input should be a valid datetime in RFC 3339 format, e.g. 2026-11-21T14:03:00Z", input);
  }
  const date = new Date(input.trim());
  if (Number.isNaN(date.getTime())) return fail(path, "datetime_parsing", "Input should be a valid datetime", input);
  const value = timestampFromDate(date);
  if (!timestampInRange(value.seconds)) return fail(path, "datetime_parsing", TIMESTAMP_RANGE_MESSAGE, input);
  return { ok: true, value };
}

function parseEnum(path: string, field: DescField, input: unknown): Parsed {
  const desc = field.enum;
  if (!desc) return fail(path, "enum", "Unsupported enum", input);
  const number = typeof input === "string" ? enumFromJson(desc, input) : undefined;
  if (number === undefined) {
    const expected = expectedList(enumJsonValues(desc));
    return { ok: false, violation: violation(path, "enum", `Input should be ${expected}`, input, { expected }) };
  }
  return { ok: true, value: number };
}

/** One value of a field (one element, for repeated fields) from JSON or query text. */
export function parseSingular(path: string, field: DescField, input: unknown): Parsed {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (kind === "enum") return parseEnum(path, field, input);
  if (kind === "message") {
    const desc = field.message;
    if (!desc) return fail(path, "type_error", "Unsupported message", input);
    return parseMessageValue(path, desc, input);
  }
  return parseScalar(path, field, input);
}

function parseMessageValue(path: string, desc: DescMessage, input: unknown): Parsed {
  if (desc.typeName === TimestampSchema.typeName) return parseTimestamp(path, input);
  if (desc.typeName === StructSchema.typeName) {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return fail(path, "dict_type", "Input should be a valid dictionary", input);
    }
    // A Struct field holds its JSON object as it is (protobuf-es represents it as JsonObject).
    return { ok: true, value: input };
  }
  if (desc.typeName === ValueSchema.typeName) return { ok: true, value: fromJson(ValueSchema, input as JsonValue) };
  const out: Violation[] = [];
  const message = readMessage(desc, input, path, out);
  return out.length > 0 || !message
    ? { ok: false, violation: out[0] ?? violation(path, "model_type", "Input should be a valid dictionary or object to extract fields from", input) }
    : { ok: true, value: message };
}

/**
 * Builds a message from a JSON object, collecting one violation per bad field (all of them).
 * Unknown keys are ignored. `null` leaves a field unset unless the field is not_null.
 */
export function readMessage(desc: DescMessage, input: unknown, prefix: string, out: Violation[]): AnyMessage | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    out.push(violation(prefix, "model_attributes_type", "Input should be a valid dictionary or object to extract fields from", input));
    return undefined;
  }
  const message = create(desc) as AnyMessage;
  const object = input as Record<string, unknown>;
  for (const field of desc.fields) {
    if (!(field.name in object)) continue;
    const value = object[field.name];
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (value === null) {
      if (fieldRules(field)?.notNull) out.push(violation(path, nullType(field), nullMessage(field), null));
      continue;
    }
    if (field.fieldKind === "list") {
      if (!Array.isArray(value)) {
        out.push(violation(path, "list_type", "Input should be a valid list", value));
        continue;
      }
      const items: unknown[] = [];
      value.forEach((item, index) => {
        const parsed = parseSingular(`${path}.${index}`, field, item);
        if (parsed.ok) items.push(parsed.value);
        else out.push(parsed.violation);
      });
      message[field.localName] = items;
    } else if (field.fieldKind === "map") {
      if (typeof value !== "object" || Array.isArray(value)) {
        out.push(violation(path, "dict_type", "Input should be a valid dictionary", value));
        continue;
      }
      const entries: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const parsed = parseSingular(`${path}.${key}`, field, item);
        if (parsed.ok) entries[key] = parsed.value;
        else out.push(parsed.violation);
      }
      message[field.localName] = entries;
    } else {
      const parsed = parseSingular(path, field, value);
      if (parsed.ok) message[field.localName] = parsed.value;
      else out.push(parsed.violation);
    }
  }
  return message;
}

function isTimestamp(field: DescField): boolean {
  return field.fieldKind === "message" && field.message.typeName === TimestampSchema.typeName;
}

function nullType(field: DescField): string {
  if (isTimestamp(field)) return "datetime_type";
  if (field.fieldKind === "enum") return "enum";
  if (field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL) return "bool_type";
  if (field.fieldKind === "scalar" && field.scalar !== ScalarType.STRING) return "int_type";
  return "string_type";
}

function nullMessage(field: DescField): string {
  if (isTimestamp(field)) return "Input should be a valid datetime";
  if (field.fieldKind === "enum" && field.enum) return `Input should be ${expectedList(enumJsonValues(field.enum))}`;
  if (field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL) return "Input should be a valid boolean";
  if (field.fieldKind === "scalar" && field.scalar !== ScalarType.STRING) return "Input should be a valid integer";
  return "Input should be a valid string";
}

function writeSingular(field: DescField, value: unknown): unknown {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (kind === "enum") return field.enum ? enumToJson(field.enum, value as number) : null;
  if (kind === "message") return field.message ? writeMessage(field.message, value as AnyMessage) : null;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  return value;
}

/** Writes a message as the API's JSON: every field present, unset ones as null. */
export function writeMessage(desc: DescMessage, message: AnyMessage | undefined): unknown {
  if (message === undefined || message === null) return null;
  if (desc.typeName === TimestampSchema.typeName) return timestampDate(message as unknown as Timestamp).toISOString();
  if (desc.typeName === StructSchema.typeName || desc.typeName === ValueSchema.typeName) {
    // A Struct field already holds plain JSON; a Struct inside a Value is a message.
    return "$typeName" in message ? toJson(desc, message as never) : message;
  }
  const out: Record<string, unknown> = {};
  for (const field of desc.fields) {
    const value = message[field.localName];
    if (field.fieldKind === "list") {
      out[field.name] = (value as unknown[]).map((item) => writeSingular(field, item));
    } else if (field.fieldKind === "map") {
      out[field.name] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, writeSingular(field, v)]));
    } else if (value === undefined || value === null) {
      out[field.name] = null;
    } else {
      out[field.name] = writeSingular(field, value);
    }
  }
  return out;
}

/** Writes the value of one field of a message (for response_body). */
export function writeField(field: DescField, message: AnyMessage): unknown {
  const value = message[field.localName];
  if (field.fieldKind === "list") return (value as unknown[]).map((item) => writeSingular(field, item));
  if (value === undefined || value === null) return null;
  return writeSingular(field, value);
}
