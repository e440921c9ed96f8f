import { describe, expect, it } from "vitest";
import {
  aboveMax,
  badFormat,
  belowMin,
  invalidValue,
  notAllowed,
  nulCharacter,
  referenceNotFound,
  required,
  TIMESTAMP_RANGE,
  tooFewItems,
  tooLong,
  tooManyItems,
  tooShort,
  violation,
  wrongType,
} from "@voiceops/platform";
import { fastApiEntry } from "../src/errors/index.js";

// The services' violations, as HTTP clients read them: FastAPI's types, messages and ctx.

const at = ["body", "f"];

describe("FastAPI wording of violations", () => {
  it.each([
    [required("f"), { type: "missing", msg: "Field required", input: null }],
    [
      required("f", "contact_id or contact"),
      { type: "missing", msg: "Field required: contact_id or contact", input: null },
    ],
    [
      violation("", "required", "At least one filter is required: a or b"),
      { type: "missing", msg: "At least one filter is required: a or b" },
    ],
    [
      tooShort("f", "", 1),
      { type: "string_too_short", msg: "String should have at least 1 character", input: "", ctx: { min_length: 1 } },
    ],
    [
      tooLong("f", "xxx", 2),
      { type: "string_too_long", msg: "String should have at most 2 characters", input: "xxx", ctx: { max_length: 2 } },
    ],
    [
      tooFewItems("f", [], 1, 0),
      {
        type: "too_short",
        msg: "List should have at least 1 item after validation, not 0",
        input: [],
        ctx: { field_type: "List", min_length: 1, actual_length: 0 },
      },
    ],
    [
      tooManyItems("f", undefined, 500, 501),
      {
        type: "too_long",
        msg: "List should have at most 500 items after validation, not 501",
        ctx: { field_type: "List", max_length: 500, actual_length: 501 },
      },
    ],
    [
      belowMin("f", -1, 0),
      { type: "greater_than_equal", msg: "Input should be greater than or equal to 0", input: -1, ctx: { ge: 0 } },
    ],
    [
      aboveMax("f", 500, 100),
      { type: "less_than_equal", msg: "Input should be less than or equal to 100", input: 500, ctx: { le: 100 } },
    ],
    [
      violation("f", "gte", "must be in the future", "2000-01-01T00:00:00Z", { min: "now" }),
      { type: "datetime_future", msg: "Input should be in the future", input: "2000-01-01T00:00:00Z" },
    ],
    [
      notAllowed("f", "x", ["LOW", "MEDIUM", "HIGH"]),
      {
        type: "enum",
        msg: "Input should be 'LOW', 'MEDIUM' or 'HIGH'",
        input: "x",
        ctx: { expected: "'LOW', 'MEDIUM' or 'HIGH'" },
      },
    ],
    [badFormat("f", "uuid", "nope"), { type: "uuid_parsing", msg: "Input should be a valid UUID", input: "nope" }],
    [
      badFormat("f", "date", "2026-02-30"),
      { type: "date_parsing", msg: "Input should be a valid date in the format YYYY-MM-DD", input: "2026-02-30" },
    ],
    [
      badFormat("f", "datetime", "x", undefined, { example: "2026-11-21T14:03:00Z" }),
      {
        type: "datetime_parsing",
        msg: "Input should be a valid datetime in RFC 3339 format, e.g. 2026-11-21T14:03:00Z",
        input: "x",
      },
    ],
    [
      badFormat("f", "datetime", undefined, undefined, TIMESTAMP_RANGE),
      {
        type: "datetime_parsing",
        msg: "Input should be a valid datetime between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z",
      },
    ],
    [badFormat("f", "email", "a@"), { type: "value_error", msg: "value is not a valid email address", input: "a@" }],
    [badFormat("f", "phone", "12"), { type: "value_error", msg: "Value error, not a valid phone number", input: "12" }],
    [
      badFormat("f", "timezone", "Mars/Base"),
      { type: "value_error", msg: "Value error, not a valid IANA time zone name", input: "Mars/Base" },
    ],
    [
      badFormat("f", "country", "XX"),
      { type: "value_error", msg: "Value error, not an ISO 3166 alpha-2 country code", input: "XX" },
    ],
    [
      nulCharacter("f", "a\u0000"),
      { type: "value_error", msg: "Value error, String should not contain NUL (\\u0000) characters", input: "a\u0000" },
    ],
    [
      referenceNotFound("f", "contact", "id"),
      { type: "value_error", msg: "Value error, contact not found", input: "id" },
    ],
    [
      invalidValue("f", "end_at must be after start_at", "t"),
      { type: "value_error", msg: "Value error, end_at must be after start_at", input: "t" },
    ],
    [
      wrongType("f", "integer", 1.5, "fraction"),
      {
        type: "int_from_float",
        msg: "Input should be a valid integer, got a number with a fractional part",
        input: 1.5,
      },
    ],
    [
      wrongType("f", "integer", "abc", "text"),
      {
        type: "int_parsing",
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "abc",
      },
    ],
    [wrongType("f", "integer", true), { type: "int_type", msg: "Input should be a valid integer", input: true }],
    [
      wrongType("f", "boolean", "perhaps"),
      { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input", input: "perhaps" },
    ],
    [
      wrongType("f", "boolean", null, "null"),
      { type: "bool_type", msg: "Input should be a valid boolean", input: null },
    ],
    [wrongType("f", "string", 7), { type: "string_type", msg: "Input should be a valid string", input: 7 }],
    [wrongType("f", "list", "x"), { type: "list_type", msg: "Input should be a valid list", input: "x" }],
    [wrongType("f", "dictionary", 1), { type: "dict_type", msg: "Input should be a valid dictionary", input: 1 }],
    [
      wrongType("f", "object", []),
      {
        type: "model_attributes_type",
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: [],
      },
    ],
    [
      wrongType("f", "datetime", null, "null"),
      { type: "datetime_type", msg: "Input should be a valid datetime", input: null },
    ],
  ])("%o", (v, expected) => {
    const entry = fastApiEntry(at, v);
    expect(entry).toStrictEqual({ loc: at, ...expected });
    // The order of the keys is part of the bytes clients see.
    expect(Object.keys(entry)).toEqual([
      "loc",
      "msg",
      "type",
      ...Object.keys(expected).filter((key) => key === "input" || key === "ctx"),
    ]);
  });
});
