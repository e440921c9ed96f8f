import { IANAZone } from "luxon";
import { getCountries } from "libphonenumber-js";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import {
  badFormat,
  isUuid,
  notAllowed,
  nulCharacter,
  parseBusinessHours,
  tooLong,
  tooShort,
  violation,
  wrongType,
  type Violation,
  type WeeklyHours,
} from "@voiceops/platform";
import { parseTimestamp } from "../transcoder/json-codec.js";
import { fastApiEntry, type ValidationEntry } from "../errors/index.js";

// Checks for the admin API's hand-written routes, reporting in the same 422 shape as the API.

const COUNTRIES = new Set<string>(getCountries());

export class InputChecker {
  readonly errors: ValidationEntry[] = [];

  constructor(private readonly body: Record<string, unknown>) {}

  static body(value: unknown): InputChecker | ValidationEntry {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return fastApiEntry(["body"], wrongType("", "object", undefined));
    return new InputChecker(value as Record<string, unknown>);
  }

  /** A violation of the body field `v.field`, at its place in the body. */
  private fail(v: Violation, below: (string | number)[] = []): undefined {
    this.errors.push(fastApiEntry(["body", v.field, ...below], v));
    return undefined;
  }

  string(name: string, options: { required?: boolean; max?: number } = {}): string | undefined {
    const value = this.body[name];
    if (value === undefined || value === null) {
      if (options.required) this.fail(violation(name, "required", ""));
      return undefined;
    }
    if (typeof value !== "string") return this.fail(wrongType(name, "string", value));
    if (value.includes("\u0000")) return this.fail(nulCharacter(name, value));
    if (options.required && value.trim() === "") return this.fail(tooShort(name, value, 1));
    if (options.max !== undefined && value.length > options.max) return this.fail(tooLong(name, value, options.max));
    return value;
  }

  timezone(name: string): string | undefined {
    const value = this.string(name, { max: 64 });
    if (value !== undefined && !IANAZone.isValidZone(value)) return this.fail(badFormat(name, "timezone", value));
    return value;
  }

  country(name: string): string | undefined {
    const value = this.string(name, { max: 2 });
    if (value !== undefined && !COUNTRIES.has(value.toUpperCase())) return this.fail(badFormat(name, "country", value));
    return value?.toUpperCase();
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value !== undefined && !(allowed as readonly string[]).includes(value))
      return this.fail(notAllowed(name, value, allowed));
    return value as T | undefined;
  }

  dateTime(name: string): Date | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const parsed = parseTimestamp(name, value);
    if (!parsed.ok) return this.fail({ ...parsed.violation, input: value });
    return timestampDate(parsed.value as Timestamp);
  }

  /** A week of opening hours (see parseBusinessHours); each problem is placed under the field. */
  businessHours(name: string): WeeklyHours | undefined {
    const value = this.body[name];
    if (value === undefined) return undefined;
    const { hours, problems } = parseBusinessHours(value);
    for (const problem of problems) this.fail({ ...problem.violation, field: name }, problem.path);
    return hours;
  }

  /** A datetime that must lie after `now` (an expiry). */
  futureDateTime(name: string, now: number): Date | undefined {
    const date = this.dateTime(name);
    if (date !== undefined && date.getTime() <= now)
      return this.fail(violation(name, "gte", "must be in the future", this.body[name], { min: "now" }));
    return date;
  }
}

export function uuidPathError(name: string, value: string): ValidationEntry | undefined {
  return isUuid(value) ? undefined : fastApiEntry(["path", name], badFormat(name, "uuid", value));
}
