import { ScalarType, create, fromJson, type DescField, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { StructSchema, TimestampSchema, ValueSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  aboveMax,
  badFormat,
  belowMin,
  enumFromJson,
  enumJsonValues,
  fieldRules,
  invalidValue,
  notAllowed,
  TIMESTAMP_RANGE,
  timestampInRange,
  wrongType,
  type ValueType,
  type Violation,
  type ViolationContext,
} from "@voiceops/platform";

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

function failed(violation: Violation): Parsed {
  return { ok: false, violation };
}

function fail(path: string, expected: ValueType, input: unknown, got?: ViolationContext["got"]): Parsed {
  return failed(wrongType(path, expected, input, got));
}

function parseInteger(path: string, field: DescField, input: unknown): Parsed {
  let value: number;
  if (typeof input === "number") {
    if (!Number.isInteger(input)) return fail(path, "integer", input, "fraction");
    value = input;
  } else if (typeof input === "string" && INTEGER_TEXT.test(input.trim())) {
    value = Number(input.trim());
  } else if (typeof input === "string") {
    return fail(path, "integer", input, "text");
  } else {
    return fail(path, "integer", input);
  }
  const scalar = field.scalar ?? ScalarType.INT32;
  const rules = fieldRules(field);
  // Out-of-type-range values are reported as the declared bound (or the type's) would be.
  if (INT32_TYPES.has(scalar) || UINT32_TYPES.has(scalar)) {
    const max = UINT32_TYPES.has(scalar) ? 4_294_967_295 : 2_147_483_647;
    const min = UINT32_TYPES.has(scalar) ? 0 : -2_147_483_648;
    if (value > max) return failed(aboveMax(path, input, Number(rules?.max ?? max)));
    if (value < min) return failed(belowMin(path, input, Number(rules?.min ?? min)));
    return { ok: true, value };
  }
  if (!Number.isSafeInteger(value)) return fail(path, "integer", input, "text");
  if (UINT64_TYPES.has(scalar) && value < 0) return failed(belowMin(path, input, 0));
  return { ok: true, value: BigInt(value) };
}

function parseScalar(path: string, field: DescField, input: unknown): Parsed {
  const scalar = field.scalar ?? ScalarType.STRING;
  if (scalar === ScalarType.STRING) {
    return typeof input === "string" ? { ok: true, value: input } : fail(path, "string", input);
  }
  if (scalar === ScalarType.BOOL) {
    if (typeof input === "boolean") return { ok: true, value: input };
    const word =
      typeof input === "string" ? input.trim().toLowerCase() : typeof input === "number" ? String(input) : undefined;
    if (word !== undefined && TRUE_WORDS.has(word)) return { ok: true, value: true };
    if (word !== undefined && FALSE_WORDS.has(word)) return { ok: true, value: false };
    return fail(path, "boolean", input);
  }
  if (FLOAT_TYPES.has(scalar)) {
    const value =
      typeof input === "number" ? input : typeof input === "string" && input.trim() !== "" ? Number(input) : Number.NaN;
    return Number.isFinite(value) ? { ok: true, value } : fail(path, "number", input);
  }
  if (INT32_TYPES.has(scalar) || UINT32_TYPES.has(scalar) || INT64_TYPES.has(scalar) || UINT64_TYPES.has(scalar)) {
    return parseInteger(path, field, input);
  }
  if (scalar === ScalarType.BYTES) {
    return typeof input === "string"
      ? { ok: true, value: new Uint8Array(Buffer.from(input, "base64")) }
      : fail(path, "bytes", input);
  }
  return failed(invalidValue(path, "unsupported value", input));
}

export function parseTimestamp(path: string, input: unknown): Parsed {
  if (typeof input !== "string" || !RFC3339.test(input.trim())) {
    return failed(badFormat(path, "datetime", input, undefined, { example: "2026-11-21T14:03:00Z" }));
  }
  const date = new Date(input.trim());
  if (Number.isNaN(date.getTime())) return failed(badFormat(path, "datetime", input));
  const value = timestampFromDate(date);
  if (!timestampInRange(value.seconds)) return failed(badFormat(path, "datetime", input, undefined, TIMESTAMP_RANGE));
  return { ok: true, value };
}

function parseEnum(path: string, field: DescField, input: unknown): Parsed {
  const desc = field.enum;
  if (!desc) return failed(invalidValue(path, "unsupported enum", input));
  const number = typeof input === "string" ? enumFromJson(desc, input) : undefined;
  if (number === undefined) return failed(notAllowed(path, input, enumJsonValues(desc)));
  return { ok: true, value: number };
}

/** One value of a field (one element, for repeated fields) from JSON or query text. */
export function parseSingular(path: string, field: DescField, input: unknown): Parsed {
  const kind =
    field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (kind === "enum") return parseEnum(path, field, input);
  if (kind === "message") {
    const desc = field.message;
    if (!desc) return failed(invalidValue(path, "unsupported message", input));
    return parseMessageValue(path, desc, input);
  }
  return parseScalar(path, field, input);
}

function parseMessageValue(path: string, desc: DescMessage, input: unknown): Parsed {
  if (desc.typeName === TimestampSchema.typeName) return parseTimestamp(path, input);
  if (desc.typeName === StructSchema.typeName) {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return fail(path, "dictionary", input);
    }
    // A Struct field holds its JSON object as it is (protobuf-es represents it as JsonObject).
    return { ok: true, value: input };
  }
  if (desc.typeName === ValueSchema.typeName) return { ok: true, value: fromJson(ValueSchema, input as JsonValue) };
  const out: Violation[] = [];
  const message = readMessage(desc, input, path, out);
  return out.length > 0 || !message ? failed(out[0] ?? wrongType(path, "object", input)) : { ok: true, value: message };
}

/**
 * Builds a message from a JSON object, collecting one violation per bad field (all of them).
 * Unknown keys are ignored. `null` leaves a field unset unless the field is not_null.
 */
export function readMessage(
  desc: DescMessage,
  input: unknown,
  prefix: string,
  out: Violation[],
): AnyMessage | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    out.push(wrongType(prefix, "object", input));
    return undefined;
  }
  const message = create(desc) as AnyMessage;
  const object = input as Record<string, unknown>;
  for (const field of desc.fields) {
    if (!(field.name in object)) continue;
    const value = object[field.name];
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (value === null) {
      if (fieldRules(field)?.notNull) out.push(nullViolation(path, field));
      continue;
    }
    if (field.fieldKind === "list") {
      if (!Array.isArray(value)) {
        out.push(wrongType(path, "list", value));
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
        out.push(wrongType(path, "dictionary", value));
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

/** A null sent for a not_null field: the field's type is what it should have been. */
function nullViolation(path: string, field: DescField): Violation {
  if (isTimestamp(field)) return wrongType(path, "datetime", null, "null");
  if (field.fieldKind === "enum") return notAllowed(path, null, enumJsonValues(field.enum));
  if (field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL) return wrongType(path, "boolean", null, "null");
  if (field.fieldKind === "scalar" && field.scalar !== ScalarType.STRING)
    return wrongType(path, "integer", null, "null");
  return wrongType(path, "string", null, "null");
}

// Responses are written by the platform (the webhooks service writes event payloads the same way).
export { writeField, writeMessage } from "@voiceops/platform";
