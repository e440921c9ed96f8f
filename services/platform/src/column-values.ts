import { isFieldSet, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { TimestampSchema, timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { declaredDefault } from "./defaults.js";
import { enumToJson, fieldRules } from "./proto-options.js";
import { blankToNull, distinctLabels } from "./updates.js";
import { phoneInput } from "./validation/phone-input.js";
import { wrongType, type Violation } from "./validation/violations.js";

/** What a column can hold when written from a request. */
type ColumnValue = string | number | boolean | Date | string[] | null;

/** Where a field's value is read, for the few fields whose rule is their own. */
interface ColumnField {
  /** The field's path in violations, e.g. "contact.name". */
  path: string;
  /** Violations found so far; an override adds its own. */
  violations: Violation[];
}

/** The column value of one field (undefined: the column is left out), given the field's value (undefined when absent). */
type ColumnOverride = (value: unknown, field: ColumnField) => ColumnValue | undefined;

interface ColumnOptions<C extends string> {
  /** Prefix of the message's fields in violations, e.g. "contact." for an update body. */
  prefix?: string;
  /** Default country of phone numbers written without one; required when a column is a phone field. */
  country?: string;
  /** Rules of the genuinely special fields, by column. */
  overrides?: Partial<Record<C, ColumnOverride>>;
}

const fieldsByName = new WeakMap<DescMessage, Map<string, DescField>>();

function fieldNamed(schema: DescMessage, name: string): DescField {
  let byName = fieldsByName.get(schema);
  if (!byName) {
    byName = new Map(schema.fields.map((field) => [field.name, field]));
    fieldsByName.set(schema, byName);
  }
  const field = byName.get(name);
  if (!field) throw new Error(`${schema.typeName} has no field ${name}`);
  return field;
}

/**
 * A name that cannot be emptied: named without a value (a gRPC caller whose mask names it) is
 * a violation (not a string, as a null is). The gateway refuses null and blank names before this.
 */
export const requiredText: ColumnOverride = (value, { path, violations }) => {
  const text = blankToNull(value as string | undefined);
  if (text === null) violations.push(wrongType(path, "string", null));
  return text ?? undefined;
};

function textValue(
  field: DescField,
  text: string,
  path: string,
  options: ColumnOptions<string>,
  violations: Violation[],
): ColumnValue | undefined {
  const rules = fieldRules(field);
  if (rules?.phone) {
    if (options.country === undefined) throw new Error(`column ${field.name} is a phone number: a country is needed`);
    return phoneInput(text, options.country, path, violations);
  }
  const trimmed = blankToNull(text);
  return rules?.uuid ? (trimmed?.toLowerCase() ?? null) : trimmed;
}

/** The column value of a field that holds a value: the rules its descriptor declares. */
function presentValue(
  field: DescField,
  value: unknown,
  path: string,
  options: ColumnOptions<string>,
  violations: Violation[],
): ColumnValue | undefined {
  switch (field.fieldKind) {
    case "list":
      if (field.listKind === "scalar" && field.scalar === ScalarType.STRING) return distinctLabels(value as string[]);
      break;
    case "enum":
      return enumToJson(field.enum, value as number);
    case "message":
      if (field.message.typeName === TimestampSchema.typeName) return timestampDate(value as Timestamp);
      break;
    case "scalar":
      if (typeof value === "string") return textValue(field, value, path, options, violations);
      if (typeof value === "bigint") return Number(value);
      if (typeof value === "number" || typeof value === "boolean") return value;
      break;
  }
  throw new Error(`column ${field.name}: no column value for a ${field.fieldKind} field`);
}

/**
 * The column values of the named fields of a create or update message, driven by its
 * descriptor: columns are named as the proto fields (snake_case). Text is trimmed and blank
 * text stored as null; UUIDs in lower case; phone fields in E.164 (an invalid one is a
 * violation); enums by their JSON spelling; timestamps as Dates; 64-bit integers as numbers;
 * lists of labels trimmed, without blanks and duplicates.
 *
 * A named field without a value takes its declared default (default_json); else a field that
 * cannot be null (not_null) is left out, so the column keeps its value; else the column is
 * cleared (null; an empty list). `V` names the store's column types: the descriptor and the
 * overrides decide the values, so they must agree with it.
 */
export function columnValues<V extends object>(
  schema: DescMessage,
  message: object,
  columns: Iterable<keyof V & string>,
  options: ColumnOptions<keyof V & string> = {},
): { values: Partial<V>; violations: Violation[] } {
  const values: Record<string, ColumnValue> = {};
  const violations: Violation[] = [];
  const prefix = options.prefix ?? "";
  for (const column of columns) {
    const field = fieldNamed(schema, column);
    const path = `${prefix}${column}`;
    const set = isFieldSet(message as never, field);
    const value = set ? (message as Record<string, unknown>)[field.localName] : undefined;
    const override = options.overrides?.[column];
    let result: ColumnValue | undefined;
    if (override) result = override(value, { path, violations });
    else if (set) result = presentValue(field, value, path, options, violations);
    else if (field.fieldKind === "list") result = [];
    else
      result = (declaredDefault(field) as ColumnValue | undefined) ?? (fieldRules(field)?.notNull ? undefined : null);
    if (result !== undefined) values[column] = result;
  }
  return { values: values as Partial<V>, violations };
}
