import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  FieldViolationSchema,
  ValidationFailureSchema,
  ViolationRule,
} from "@voiceops/proto/voiceops/api/v1/errors_pb";

// Services report what is wrong with a request in a vocabulary of their own (a rule, its
// parameters, a plain reason); the gateway alone words it for HTTP clients.

/** The rule a field broke: the closed set declared once, as the proto enum ViolationRule. */
type Rule = Lowercase<Exclude<keyof typeof ViolationRule, "UNSPECIFIED">>;

/** What a `format` violation expected a text to read as. */
type ValueFormat = "uuid" | "date" | "datetime" | "email" | "phone" | "timezone" | "time" | "country";

/** What a `type` violation expected a value to be. */
export type ValueType =
  | "string"
  | "integer"
  | "number"
  | "boolean"
  | "bytes"
  | "list"
  | "dictionary"
  | "object"
  | "datetime"
  | "string_or_list";

/** The parameters of a rule (each rule uses its own few). */
export interface ViolationContext {
  /** min_length / max_length: characters. */
  min_length?: number;
  max_length?: number;
  /** min_items / max_items: items, and how many there were. */
  min_items?: number;
  max_items?: number;
  actual_items?: number;
  /** gte / lte: the bound ("now" for an instant that must lie ahead); format datetime: the range of accepted instants. */
  min?: number | string;
  max?: number | string;
  /** enum: the values allowed. */
  allowed?: readonly string[];
  /** format: what the text should read as, and an example of one. */
  format?: ValueFormat;
  example?: string;
  /** type: what the value should be, and what came instead when it matters (null, a fraction, unparsable text). */
  expected?: ValueType;
  got?: "null" | "fraction" | "text";
  /** not_found: the kind of record referenced. */
  entity?: string;
}

/** One failing field. */
export interface Violation {
  /** Dotted field path in the request message ("" = the request or body as a whole). */
  field: string;
  rule: Rule;
  /** Plain-English reason, no HTTP wording; may be empty when the rule and context say it all. */
  message: string;
  input?: unknown;
  context?: ViolationContext;
}

export function violation(
  field: string,
  rule: Rule,
  message: string,
  input?: unknown,
  context?: ViolationContext,
): Violation {
  return { field, rule, message, input, context };
}

/** An absent field; `what` says what exactly is required when the field name alone does not. */
export function required(field: string, what = ""): Violation {
  return violation(field, "required", what, null);
}

/** A field naming a record the organization does not have ("contact" -> "contact not found"). */
export function referenceNotFound(field: string, entity: string, input: unknown): Violation {
  return violation(field, "not_found", `${entity} not found`, input, { entity });
}

/** A rule of the operation itself (across fields, or against stored state), with its reason. */
export function invalidValue(field: string, reason: string, input?: unknown): Violation {
  return violation(field, "invalid", reason, input);
}

/** A text shorter than `min` characters (a blank one, for `min` 1). */
export function tooShort(field: string, input: unknown, min: number): Violation {
  return violation(field, "min_length", `at least ${min} character${min === 1 ? "" : "s"}`, input, { min_length: min });
}

/** A text longer than `max` characters. */
export function tooLong(field: string, input: unknown, max: number): Violation {
  return violation(field, "max_length", `at most ${max} character${max === 1 ? "" : "s"}`, input, { max_length: max });
}

/** A list of fewer than `min` items. */
export function tooFewItems(field: string, input: unknown, min: number, actual: number): Violation {
  return violation(field, "min_items", `at least ${min} item${min === 1 ? "" : "s"}, not ${actual}`, input, {
    min_items: min,
    actual_items: actual,
  });
}

/** A list of more than `max` items. */
export function tooManyItems(field: string, input: unknown, max: number, actual: number): Violation {
  return violation(field, "max_items", `at most ${max} item${max === 1 ? "" : "s"}, not ${actual}`, input, {
    max_items: max,
    actual_items: actual,
  });
}

/** A number below `min`. */
export function belowMin(field: string, input: unknown, min: number): Violation {
  return violation(field, "gte", `at least ${min}`, input, { min });
}

/** A number above `max`. */
export function aboveMax(field: string, input: unknown, max: number): Violation {
  return violation(field, "lte", `at most ${max}`, input, { max });
}

/** A value that is none of `allowed`. */
export function notAllowed(field: string, input: unknown, allowed: readonly string[]): Violation {
  return violation(field, "enum", `one of ${allowed.join(", ")}`, input, { allowed });
}

const FORMAT_REASONS: Record<ValueFormat, string> = {
  uuid: "not a valid UUID",
  date: "not a valid date (YYYY-MM-DD)",
  datetime: "not a valid RFC 3339 datetime",
  email: "not a valid email address",
  phone: "not a valid phone number",
  timezone: "not a valid IANA time zone name",
  time: "not a time of day as HH:MM",
  country: "not an ISO 3166 alpha-2 country code",
};

/** A text that does not read as `format`; `reason` when it says more than the format's usual one. */
export function badFormat(
  field: string,
  format: ValueFormat,
  input: unknown,
  reason = FORMAT_REASONS[format],
  context: ViolationContext = {},
): Violation {
  return violation(field, "format", reason, input, { ...context, format });
}

/** A value of the wrong type. */
export function wrongType(
  field: string,
  expected: ValueType,
  input: unknown,
  got?: ViolationContext["got"],
): Violation {
  return violation(
    field,
    "type",
    `not a valid ${expected.replaceAll("_", " ")}`,
    input,
    got === undefined ? { expected } : { expected, got },
  );
}

/** A text (or a JSON value's key or string) holding NUL, which PostgreSQL text cannot store. */
export function nulCharacter(field: string, input?: unknown): Violation {
  return violation(field, "no_nul", "must not contain NUL characters", input);
}

const RULE_OF_NAME = new Map<string, ViolationRule>(
  Object.entries(ViolationRule)
    .filter(
      (entry): entry is [string, ViolationRule] =>
        typeof entry[1] === "number" && entry[1] !== ViolationRule.UNSPECIFIED,
    )
    .map(([name, value]) => [name.toLowerCase(), value]),
);
const NAME_OF_RULE = new Map([...RULE_OF_NAME].map(([name, value]) => [value, name as Rule]));

/** An INVALID_ARGUMENT error that carries every violation, for the gateway to place. */
export function invalidArgument(violations: Violation[]): ConnectError {
  const summary = violations.map((v) => `${v.field || "request"}: ${v.message || v.rule}`).join("; ");
  return new ConnectError(summary, Code.InvalidArgument, undefined, [
    {
      desc: ValidationFailureSchema,
      value: create(ValidationFailureSchema, {
        violations: violations.map((v) =>
          create(FieldViolationSchema, {
            field: v.field,
            rule: RULE_OF_NAME.get(v.rule) ?? ViolationRule.UNSPECIFIED,
            message: v.message,
            inputJson: v.input === undefined ? "" : JSON.stringify(v.input),
            contextJson: v.context === undefined ? "" : JSON.stringify(v.context),
          }),
        ),
      }),
    },
  ]);
}

/** Reads the violations back from an error (empty when it carries none); an unknown rule reads as `invalid`. */
export function violationsOf(error: ConnectError): Violation[] {
  const failures = error.findDetails(ValidationFailureSchema);
  return failures.flatMap((failure) =>
    failure.violations.map((v) => ({
      field: v.field,
      rule: NAME_OF_RULE.get(v.rule) ?? "invalid",
      message: v.message,
      input: v.inputJson ? (JSON.parse(v.inputJson) as unknown) : undefined,
      context: v.contextJson ? (JSON.parse(v.contextJson) as ViolationContext) : undefined,
    })),
  );
}

/** The 404 of a record the caller's organization does not have ("Contact not found"). */
export function notFound(what: string): ConnectError {
  return new ConnectError(`${what} not found`, Code.NotFound);
}
