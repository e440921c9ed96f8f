import { isFieldSet, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { TimestampSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import { IANAZone } from "luxon";
import { isUuid } from "../ids.js";
import { normalizePhone } from "../phone.js";
import { isCalendarDate } from "../time.js";
import { enumJsonValues, enumToJson, fieldRules } from "../proto-options.js";
import {
  badFormat,
  belowMin,
  aboveMax,
  notAllowed,
  nulCharacter,
  required,
  tooFewItems,
  tooLong,
  tooManyItems,
  tooShort,
  type Violation,
} from "./violations.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether a text looks like an email address (the `email` field rule). */
export function isEmail(text: string): boolean {
  return EMAIL.test(text);
}

type AnyMessage = Record<string, unknown>;

function join(prefix: string, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}

function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith("google.protobuf.");
}

/** What validation needs to know of the caller. */
interface ValidationContext {
  /** Default country for phone numbers written without a country code. */
  country: string;
}

/** PostgreSQL text cannot hold NUL; neither can any of our strings. */
const NUL = "\u0000";

/** Timestamps the API accepts and can write back in RFC 3339: years 0001 to 9999 (as protobuf's Timestamp). */
const TIMESTAMP_MIN_SECONDS = -62_135_596_800n;
const TIMESTAMP_MAX_SECONDS = 253_402_300_799n;

export function timestampInRange(seconds: bigint): boolean {
  return seconds >= TIMESTAMP_MIN_SECONDS && seconds <= TIMESTAMP_MAX_SECONDS;
}

/** The accepted range of instants, for a violation's context. */
export const TIMESTAMP_RANGE = { min: "0001-01-01T00:00:00Z", max: "9999-12-31T23:59:59Z" } as const;

/** NUL characters anywhere in a JSON-like value (a Struct's keys and strings), walked without recursion. */
function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "string") {
      if (current.includes(NUL)) return true;
    } else if (typeof current === "object" && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        if (key.includes(NUL)) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

function checkString(
  path: string,
  value: string,
  field: DescField,
  out: Violation[],
  context: ValidationContext,
): void {
  if (value.includes(NUL)) {
    out.push(nulCharacter(path, value));
    return;
  }
  const rules = fieldRules(field);
  if (!rules) return;
  const length = [...value].length;
  if (rules.minLen !== undefined && length < rules.minLen) {
    out.push(tooShort(path, value, rules.minLen));
  } else if (rules.maxLen !== undefined && length > rules.maxLen) {
    out.push(tooLong(path, value, rules.maxLen));
  } else if (rules.notBlank && value.trim() === "") {
    out.push(tooShort(path, value, 1));
  }
  if (rules.uuid && !isUuid(value)) out.push(badFormat(path, "uuid", value));
  if (rules.in.length > 0 && !rules.in.includes(value)) out.push(notAllowed(path, value, rules.in));
  if (rules.email && value !== "" && !isEmail(value)) out.push(badFormat(path, "email", value));
  if (rules.phone && value.trim() !== "" && !normalizePhone(value, context.country))
    out.push(badFormat(path, "phone", value));
  if (rules.date && !isCalendarDate(value)) out.push(badFormat(path, "date", value));
  if (rules.timezone && !IANAZone.isValidZone(value)) out.push(badFormat(path, "timezone", value));
}

function checkNumber(path: string, value: number | bigint, field: DescField, out: Violation[]): void {
  const rules = fieldRules(field);
  if (!rules) return;
  if (rules.min !== undefined && BigInt(value) < rules.min) out.push(belowMin(path, Number(value), Number(rules.min)));
  if (rules.max !== undefined && BigInt(value) > rules.max) out.push(aboveMax(path, Number(value), Number(rules.max)));
}

function checkValue(
  path: string,
  value: unknown,
  field: DescField,
  out: Violation[],
  context: ValidationContext,
): void {
  if (typeof value === "string") checkString(path, value, field, out, context);
  else if (typeof value === "number" || typeof value === "bigint") {
    if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum")) {
      const desc = field.enum;
      if (desc && enumToJson(desc, Number(value)) === null)
        out.push(notAllowed(path, Number(value), enumJsonValues(desc)));
    } else {
      checkNumber(path, value, field, out);
    }
  } else if (typeof value === "object" && value !== null && field.message) {
    if (!isWellKnown(field.message)) out.push(...validateMessage(field.message, value as AnyMessage, context, path));
    else if (field.message.typeName === TimestampSchema.typeName) {
      if (!timestampInRange(BigInt((value as Timestamp).seconds)))
        out.push(badFormat(path, "datetime", undefined, undefined, TIMESTAMP_RANGE));
    } else if (containsNul(value)) {
      out.push(nulCharacter(path));
    }
  }
}

/**
 * Checks a message against the FieldRules of its fields (recursing into nested messages) and
 * returns every violation, not only the first.
 */
export function validateMessage(
  schema: DescMessage,
  message: AnyMessage,
  context: ValidationContext,
  prefix = "",
): Violation[] {
  const out: Violation[] = [];
  for (const field of schema.fields) {
    const path = join(prefix, field.name);
    const rules = fieldRules(field);
    const set = isFieldSet(message as never, field);
    if (!set) {
      if (rules?.required) out.push(required(path));
      continue;
    }
    const value = message[field.localName];
    if (field.fieldKind === "list") {
      const items = value as unknown[];
      if (rules?.minItems !== undefined && items.length < rules.minItems)
        out.push(tooFewItems(path, undefined, rules.minItems, items.length));
      if (rules?.maxItems !== undefined && items.length > rules.maxItems)
        out.push(tooManyItems(path, undefined, rules.maxItems, items.length));
      for (const [index, item] of items.entries()) checkValue(`${path}.${index}`, item, field, out, context);
    } else if (field.fieldKind === "map") {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (key.includes(NUL)) out.push(nulCharacter(path, key));
        else checkValue(`${path}.${key}`, item, field, out, context);
      }
    } else {
      checkValue(path, value, field, out, context);
    }
  }
  return out;
}
