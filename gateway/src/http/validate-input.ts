import { IANAZone } from "luxon";
import { getCountries } from "libphonenumber-js";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { isUuid, NUL_MESSAGE, parseBusinessHours, type WeeklyHours } from "@voiceops/platform";
import { parseTimestamp } from "../transcoder/json-codec.js";
import type { ValidationEntry } from "../transcoder/request.js";

// Checks for the admin API's hand-written routes, reporting in the same 422 shape as the API.

const COUNTRIES = new Set<string>(getCountries());

export class InputChecker {
  readonly errors: ValidationEntry[] = [];

  constructor(private readonly body: Record<string, unknown>) {}

  static body(value: unknown): InputChecker | ValidationEntry {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" };
    }
    return new InputChecker(value as Record<string, unknown>);
  }

  string(name: string, options: { required?: boolean; max?: number } = {}): string | undefined {
    const value = this.body[name];
    if (value === undefined || value === null) {
      if (options.required) this.errors.push({ loc: ["body", name], msg: "Field required", type: "missing" });
      return undefined;
    }
    if (typeof value !== "string") {
      this.errors.push({ loc: ["body", name], msg: "Input should be a valid string", type: "string_type", input: value });
      return undefined;
    }
    if (value.includes("\u0000")) {
      this.errors.push({ loc: ["body", name], msg: NUL_MESSAGE, type: "value_error", input: value });
      return undefined;
    }
    if (options.required && value.trim() === "") {
      this.errors.push({ loc: ["body", name], msg: "String should have at least 1 character", type: "string_too_short", input: value });
      return undefined;
    }
    if (options.max !== undefined && value.length > options.max) {
      this.errors.push({ loc: ["body", name], msg: `String should have at most ${options.max} characters`, type: "string_too_long", input: value });
      return undefined;
    }
    return value;
  }

  timezone(name: string): string | undefined {
    const value = this.string(name, { max: 64 });
    if (value !== undefined && !IANAZone.isValidZone(value)) {
      this.errors.push({ loc: ["body", name], msg: "Value error, not a valid IANA time zone name", type: "value_error", input: value });
      return undefined;
    }
    return value;
  }

  country(name: string): string | undefined {
    const value = this.string(name, { max: 2 });
    if (value !== undefined && !COUNTRIES.has(value.toUpperCase())) {
      this.errors.push({ loc: ["body", name], msg: "Value error, not an ISO 3166 alpha-2 country code", type: "value_error", input: value });
      return undefined;
    }
    return value?.toUpperCase();
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value !== undefined && !(allowed as readonly string[]).includes(value)) {
      this.errors.push({ loc: ["body", name], msg: `Input should be ${allowed.map((a) => `'${a}'`).join(", ")}`, type: "enum", input: value });
      return undefined;
    }
    return value as T | undefined;
  }

  dateTime(name: string): Date | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const parsed = parseTimestamp(name, value);
    if (!parsed.ok) {
      this.errors.push({ loc: ["body", name], msg: parsed.violation.message, type: parsed.violation.type, input: value });
      return undefined;
    }
    return timestampDate(parsed.value as Timestamp);
  }

  /** A week of opening hours (see parseBusinessHours); each problem is placed under the field. */
  businessHours(name: string): WeeklyHours | undefined {
    const value = this.body[name];
    if (value === undefined) return undefined;
    const { hours, problems } = parseBusinessHours(value);
    for (const problem of problems) {
      this.errors.push({ loc: ["body", name, ...problem.path], msg: problem.msg, type: problem.type, ...(problem.input === undefined ? {} : { input: problem.input }) });
    }
    return hours;
  }

  /** A datetime that must lie after `now` (an expiry). */
  futureDateTime(name: string, now: number): Date | undefined {
    const date = this.dateTime(name);
    if (date !== undefined && date.getTime() <= now) {
      this.errors.push({ loc: ["body", name], msg: "Input should be in the future", type: "datetime_future", input: this.body[name] });
      return undefined;
    }
    return date;
  }
}

export function uuidPathError(name: string, value: string): ValidationEntry | undefined {
  return isUuid(value) ? undefined : { loc: ["path", name], msg: "Input should be a valid UUID", type: "uuid_parsing", input: value };
}
