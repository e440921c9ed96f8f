import { isFieldSet, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { IANAZone } from "luxon";
import { isUuid } from "../ids.js";
import { normalizePhone } from "../phone.js";
import { enumFromJson, enumJsonValues, enumToJson, fieldRules } from "../proto-options.js";
import { violation, type Violation } from "./violations.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type AnyMessage = Record<string, unknown>;

function join(prefix: string, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}

function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith("google.protobuf.");
}

/** Quotes a list the way pydantic does: 'a', 'b' or 'c'. */
export function expectedList(values: string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

/** What validation needs to know of the caller. */
export interface ValidationContext {
  /** Default country for phone numbers written without a country code. */
  country: string;
}

function checkString(path: string, value: string, field: DescField, out: Violation[], context: ValidationContext): void {
  const rules = fieldRules(field);
  if (!rules) return;
  const length = [...value].length;
  if (rules.minLen !== undefined && length < rules.minLen) {
    out.push(violation(path, "string_too_short", `String should have at least ${rules.minLen} character${rules.minLen === 1 ? "" : "s"}`, value, { min_length: rules.minLen }));
  } else if (rules.maxLen !== undefined && length > rules.maxLen) {
    out.push(violation(path, "string_too_long", `String should have at most ${rules.maxLen} character${rules.maxLen === 1 ? "" : "s"}`, value, { max_length: rules.maxLen }));
  } else if (rules.notBlank && value.trim() === "") {
    out.push(violation(path, "string_too_short", "String should have at least 1 character", value, { min_length: 1 }));
  }
  if (rules.uuid && !isUuid(value)) {
    out.push(violation(path, "uuid_parsing", "Input should be a valid UUID", value));
  }
  if (rules.in.length > 0 && !rules.in.includes(value)) {
    out.push(violation(path, "enum", `Input should be ${expectedList(rules.in)}`, value, { expected: expectedList(rules.in) }));
  }
  if (rules.email && value !== "" && !EMAIL.test(value)) {
    out.push(violation(path, "value_error", "value is not a valid email address", value));
  }
  if (rules.phone && value.trim() !== "" && !normalizePhone(value, context.country)) {
    out.push(violation(path, "value_error", "Value error, not a valid phone number", value));
  }
  if (rules.timezone && !IANAZone.isValidZone(value)) {
    out.push(violation(path, "value_error", "value is not a valid IANA time zone name", value));
  }
}

function checkNumber(path: string, value: number | bigint, field: DescField, out: Violation[]): void {
  const rules = fieldRules(field);
  if (!rules) return;
  if (rules.min !== undefined && BigInt(value) < rules.min) {
    out.push(violation(path, "greater_than_equal", `Input should be greater than or equal to ${rules.min}`, Number(value), { ge: Number(rules.min) }));
  }
  if (rules.max !== undefined && BigInt(value) > rules.max) {
    out.push(violation(path, "less_than_equal", `Input should be less than or equal to ${rules.max}`, Number(value), { le: Number(rules.max) }));
  }
}

function checkValue(path: string, value: unknown, field: DescField, out: Violation[], context: ValidationContext): void {
  if (typeof value === "string") checkString(path, value, field, out, context);
  else if (typeof value === "number" || typeof value === "bigint") {
    if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum")) {
      const desc = field.enum;
      if (desc && enumToJson(desc, Number(value)) === null) {
        const expected = expectedList(enumJsonValues(desc));
        out.push(violation(path, "enum", `Input should be ${expected}`, Number(value), { expected }));
      }
    } else {
      checkNumber(path, value, field, out);
    }
  } else if (typeof value === "object" && value !== null && field.message && !isWellKnown(field.message)) {
    out.push(...validateMessage(field.message, value as AnyMessage, context, path));
  }
}

/**
 * Checks a message against the FieldRules of its fields (recursing into nested messages) and
 * returns every violation, not only the first.
 */
export function validateMessage(schema: DescMessage, message: AnyMessage, context: ValidationContext, prefix = ""): Violation[] {
  const out: Violation[] = [];
  for (const field of schema.fields) {
    const path = join(prefix, field.name);
    const rules = fieldRules(field);
    const set = isFieldSet(message as never, field);
    if (!set) {
      if (rules?.required) out.push(violation(path, "missing", "Field required", null));
      continue;
    }
    const value = message[field.localName];
    if (field.fieldKind === "list") {
      const items = value as unknown[];
      if (rules?.minItems !== undefined && items.length < rules.minItems) {
        out.push(violation(path, "too_short", `List should have at least ${rules.minItems} item${rules.minItems === 1 ? "" : "s"} after validation, not ${items.length}`, undefined, { field_type: "List", min_length: rules.minItems, actual_length: items.length }));
      }
      if (rules?.maxItems !== undefined && items.length > rules.maxItems) {
        out.push(violation(path, "too_long", `List should have at most ${rules.maxItems} item${rules.maxItems === 1 ? "" : "s"} after validation, not ${items.length}`, undefined, { field_type: "List", max_length: rules.maxItems, actual_length: items.length }));
      }
      items.forEach((item, index) => checkValue(`${path}.${index}`, item, field, out, context));
    } else if (field.fieldKind !== "map") {
      checkValue(path, value, field, out, context);
    }
  }
  return out;
}

function defaultValue(field: DescField, json: unknown): unknown {
  if (field.fieldKind === "enum" && typeof json === "string") return enumFromJson(field.enum, json);
  if (field.fieldKind === "scalar" && LONG_TYPES.has(field.scalar) && typeof json === "number") return BigInt(json);
  return json;
}

const LONG_TYPES = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

/** Fills absent top-level fields that declare a default (default_json). */
export function applyDefaults(schema: DescMessage, message: AnyMessage): void {
  for (const field of schema.fields) {
    const rules = fieldRules(field);
    if (rules?.defaultJson === undefined || isFieldSet(message as never, field)) continue;
    message[field.localName] = defaultValue(field, JSON.parse(rules.defaultJson));
  }
}
