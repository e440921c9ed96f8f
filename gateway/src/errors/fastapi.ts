import type { Violation, ViolationContext } from "@voiceops/platform";

// The one place that speaks FastAPI: it words the services' violations (a rule, its context and
// a plain reason) as the entries of an HTTPValidationError, `{"detail": [{loc, msg, type, input,
// ctx}]}`, with pydantic's types and messages. The API's request decoding, the answers of the
// services and the admin API all report through it.

/** A FastAPI-style validation entry: where, what and why. */
export interface ValidationEntry {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

type Wording = Pick<ValidationEntry, "type" | "msg" | "ctx">;

/** Quotes a list the way pydantic does: 'a', 'b' or 'c'. */
function expectedList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** pydantic's wording of a ValueError raised by a validator. */
function valueError(reason: string): Wording {
  return { type: "value_error", msg: `Value error, ${reason}` };
}

function typeWording(context: ViolationContext): Wording {
  switch (context.expected) {
    case "integer":
      if (context.got === "fraction")
        return { type: "int_from_float", msg: "Input should be a valid integer, got a number with a fractional part" };
      if (context.got === "text")
        return { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" };
      return { type: "int_type", msg: "Input should be a valid integer" };
    case "number":
      return { type: "float_parsing", msg: "Input should be a valid number, unable to parse string as a number" };
    case "boolean":
      if (context.got === "null") return { type: "bool_type", msg: "Input should be a valid boolean" };
      return { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input" };
    case "bytes":
      return { type: "bytes_type", msg: "Input should be a valid bytes" };
    case "list":
      return { type: "list_type", msg: "Input should be a valid list" };
    case "dictionary":
      return { type: "dict_type", msg: "Input should be a valid dictionary" };
    case "object":
      return {
        type: "model_attributes_type",
        msg: "Input should be a valid dictionary or object to extract fields from",
      };
    case "datetime":
      return { type: "datetime_type", msg: "Input should be a valid datetime" };
    case "string_or_list":
      return { type: "string_type", msg: "Input should be a valid string or list" };
    default:
      return { type: "string_type", msg: "Input should be a valid string" };
  }
}

function formatWording(v: Violation, context: ViolationContext): Wording {
  switch (context.format) {
    case "uuid":
      return { type: "uuid_parsing", msg: "Input should be a valid UUID" };
    case "date":
      return { type: "date_parsing", msg: "Input should be a valid date in the format YYYY-MM-DD" };
    case "datetime":
      if (context.min !== undefined && context.max !== undefined) {
        return {
          type: "datetime_parsing",
          msg: `Input should be a valid datetime between ${context.min} and ${context.max}`,
        };
      }
      if (context.example !== undefined)
        return {
          type: "datetime_parsing",
          msg: `Input should be a valid datetime in RFC 3339 format, e.g. ${context.example}`,
        };
      return { type: "datetime_parsing", msg: "Input should be a valid datetime" };
    case "email":
      // As email-validator words it inside pydantic.
      return { type: "value_error", msg: "value is not a valid email address" };
    default:
      // Phone numbers, time zones, times of day, countries: validators of our own.
      return valueError(v.message);
  }
}

function wording(v: Violation): Wording {
  const context = v.context ?? {};
  switch (v.rule) {
    case "required":
      // A requirement of the request as a whole names no field: its message is the sentence.
      if (!v.message) return { type: "missing", msg: "Field required" };
      return { type: "missing", msg: v.field ? `Field required: ${v.message}` : v.message };
    case "type":
      return typeWording(context);
    case "min_length": {
      const min = context.min_length ?? 1;
      return {
        type: "string_too_short",
        msg: `String should have at least ${count(min, "character")}`,
        ctx: { min_length: min },
      };
    }
    case "max_length": {
      const max = context.max_length ?? 0;
      return {
        type: "string_too_long",
        msg: `String should have at most ${count(max, "character")}`,
        ctx: { max_length: max },
      };
    }
    case "min_items": {
      const min = context.min_items ?? 1;
      const actual = context.actual_items ?? 0;
      return {
        type: "too_short",
        msg: `List should have at least ${count(min, "item")} after validation, not ${actual}`,
        ctx: { field_type: "List", min_length: min, actual_length: actual },
      };
    }
    case "max_items": {
      const max = context.max_items ?? 0;
      const actual = context.actual_items ?? 0;
      return {
        type: "too_long",
        msg: `List should have at most ${count(max, "item")} after validation, not ${actual}`,
        ctx: { field_type: "List", max_length: max, actual_length: actual },
      };
    }
    case "gte":
      if (context.min === "now") return { type: "datetime_future", msg: "Input should be in the future" };
      return {
        type: "greater_than_equal",
        msg: `Input should be greater than or equal to ${context.min}`,
        ctx: { ge: context.min },
      };
    case "lte":
      return {
        type: "less_than_equal",
        msg: `Input should be less than or equal to ${context.max}`,
        ctx: { le: context.max },
      };
    case "enum": {
      const expected = expectedList(context.allowed ?? []);
      return { type: "enum", msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case "format":
      return formatWording(v, context);
    case "no_nul":
      return valueError("String should not contain NUL (\\u0000) characters");
    case "not_found":
    case "invalid":
      return valueError(v.message);
  }
}

/** The HTTPValidationError entry of a violation found at `loc`. */
export function fastApiEntry(loc: (string | number)[], v: Violation): ValidationEntry {
  const { type, msg, ctx } = wording(v);
  const out: ValidationEntry = { loc, msg, type };
  if (v.input !== undefined) out.input = v.input;
  if (ctx !== undefined) out.ctx = ctx;
  return out;
}

/** A body that is not JSON, with the parser's reason. */
export function jsonDecodeError(reason: string): ValidationEntry {
  return { loc: ["body"], msg: "JSON decode error", type: "json_invalid", ctx: { error: reason } };
}

/** A refusal that is a whole sentence already (a service's or the HTTP layer's), as a value_error. */
export function refusal(loc: (string | number)[], sentence: string): ValidationEntry {
  return { loc, msg: sentence, type: "value_error" };
}
