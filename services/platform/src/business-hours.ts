import { DateTime } from "luxon";
import { badFormat, invalidValue, violation, wrongType, type Violation } from "./validation/violations.js";

// An organization's opening hours: the one definition every service uses (validation in the
// admin API, expansion into instants for scheduling, after-hours figures in analytics).

interface OpeningInterval {
  /** "HH:MM", local time. */
  start: string;
  /** "HH:MM" after start; "24:00" is the end of the day. */
  end: string;
}

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Opening hours per weekday, in the organization's time zone; an empty list is a closed day. */
export type WeeklyHours = Record<Weekday, OpeningInterval[]>;

const NINE_TO_FIVE = (): OpeningInterval[] => [{ start: "08:00", end: "17:00" }];

/** Monday to Friday 08:00 to 17:00. */
export const DEFAULT_BUSINESS_HOURS: WeeklyHours = Object.freeze({
  mon: NINE_TO_FIVE(),
  tue: NINE_TO_FIVE(),
  wed: NINE_TO_FIVE(),
  thu: NINE_TO_FIVE(),
  fri: NINE_TO_FIVE(),
  sat: [],
  sun: [],
});

/** One thing wrong with a business_hours value: where (below the field itself), and what. */
interface BusinessHoursProblem {
  path: (string | number)[];
  violation: Violation;
}

function problem(path: (string | number)[], make: (field: string) => Violation): BusinessHoursProblem {
  return { path, violation: make(path.join(".")) };
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/**
 * Reads a business_hours value: an object of weekdays (mon..sun), each a list of {start, end}
 * "HH:MM" intervals with end after start ("24:00" allowed) and none overlapping another of the
 * day (half-open: back-to-back is fine). A day left out is closed. Every problem is reported.
 */
export function parseBusinessHours(value: unknown): { hours?: WeeklyHours; problems: BusinessHoursProblem[] } {
  const problems: BusinessHoursProblem[] = [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problems: [problem([], (field) => wrongType(field, "dictionary", value))] };
  }
  const hours = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] } as WeeklyHours;
  for (const [key, day] of Object.entries(value as Record<string, unknown>)) {
    if (!(WEEKDAYS as readonly string[]).includes(key)) {
      problems.push(problem([key], (field) => invalidValue(field, `not a weekday: use ${WEEKDAYS.join(", ")}`, day)));
      continue;
    }
    if (day === null) continue;
    if (!Array.isArray(day)) {
      problems.push(problem([key], (field) => wrongType(field, "list", day)));
      continue;
    }
    const intervals: OpeningInterval[] = [];
    day.forEach((item: unknown, index) => {
      if (typeof item !== "object" || item === null || Array.isArray(item)) {
        problems.push(problem([key, index], (field) => wrongType(field, "dictionary", item)));
        return;
      }
      const fields = item as Record<string, unknown>;
      let ok = true;
      for (const name of ["start", "end"] as const) {
        const text = fields[name];
        if (text === undefined || text === null) {
          problems.push(problem([key, index, name], (field) => violation(field, "required", "")));
          ok = false;
        } else if (typeof text !== "string" || !HHMM.test(text) || (name === "start" && text === "24:00")) {
          problems.push(
            problem([key, index, name], (field) =>
              badFormat(field, "time", text, "expected a time HH:MM (00:00 to 23:59; 24:00 as an end)"),
            ),
          );
          ok = false;
        }
      }
      if (!ok) return;
      const interval = { start: fields.start as string, end: fields.end as string };
      if (minutesOf(interval.end) <= minutesOf(interval.start)) {
        problems.push(
          problem([key, index, "end"], (field) => invalidValue(field, "end must be after start", interval.end)),
        );
        return;
      }
      const clash = intervals.findIndex(
        (other) => minutesOf(other.start) < minutesOf(interval.end) && minutesOf(interval.start) < minutesOf(other.end),
      );
      if (clash >= 0) {
        problems.push(
          problem([key, index], (field) => invalidValue(field, `overlaps interval ${clash} of the day`, interval)),
        );
        return;
      }
      intervals.push(interval);
    });
    hours[key as Weekday] = intervals.sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
  }
  return problems.length > 0 ? { problems } : { hours, problems };
}

/** A local time of a local day, with that day's own offset: 08:00 stays 08:00 across a DST change. */
function at(day: DateTime, hhmm: string): DateTime {
  if (hhmm === "24:00") return day.plus({ days: 1 });
  return day.set({ hour: Number(hhmm.slice(0, 2)), minute: Number(hhmm.slice(3, 5)) });
}

/** The weekday name of a local date. */
function weekdayOf(local: DateTime): Weekday {
  return WEEKDAYS[local.weekday - 1] ?? "mon";
}

/** Expanded days, by zone, week and date: a pure function of them, and asked for the same days again and again. */
const openingsMemo = new Map<string, { start: number; end: number }[]>();
const OPENINGS_MEMO_SIZE = 20_000;

/**
 * The opening intervals of one local date (YYYY-MM-DD) of a zone as epoch milliseconds, each
 * local time read with that date's own UTC offset. Time-zone arithmetic is the costly part of
 * laying out slots, so expanded days are remembered (a bounded memo).
 */
export function openingIntervalsOn(hours: WeeklyHours, zone: string, date: string): { start: number; end: number }[] {
  const key = `${zone}|${date}|${encodeBusinessHours(hours)}`;
  const known = openingsMemo.get(key);
  if (known) return known;
  const day = DateTime.fromISO(date, { zone }).startOf("day");
  const openings = day.isValid
    ? (hours[weekdayOf(day)] ?? []).map((interval) => ({
        start: at(day, interval.start).toMillis(),
        end: at(day, interval.end).toMillis(),
      }))
    : [];
  if (openingsMemo.size >= OPENINGS_MEMO_SIZE) openingsMemo.clear();
  openingsMemo.set(key, openings);
  return openings;
}

/** Whether an instant falls in the opening hours of its local day. */
export function isOpenAt(settings: { timezone: string; hours: Partial<WeeklyHours> }, instant: Date): boolean {
  const local = DateTime.fromJSDate(instant, { zone: settings.timezone });
  const day = local.startOf("day");
  return (settings.hours[weekdayOf(local)] ?? []).some(
    (interval) => local >= at(day, interval.start) && local < at(day, interval.end),
  );
}

/** The compact spelling carried in call metadata: days in order, "08:00-17:00" intervals. */
export function encodeBusinessHours(hours: WeeklyHours): string {
  return WEEKDAYS.map((day) =>
    (hours[day] ?? []).map((interval) => `${interval.start}-${interval.end}`).join(","),
  ).join(";");
}

const decoded = new Map<string, WeeklyHours>();

/** Reads encodeBusinessHours' spelling back; anything unreadable is the default week. */
export function decodeBusinessHours(text: string | null | undefined): WeeklyHours {
  if (!text) return DEFAULT_BUSINESS_HOURS;
  const known = decoded.get(text);
  if (known) return known;
  const days = text.split(";");
  const value: Record<string, OpeningInterval[]> = {};
  WEEKDAYS.forEach((day, index) => {
    value[day] = (days[index] ?? "")
      .split(",")
      .filter(Boolean)
      .map((pair) => {
        const [start, end] = pair.split("-");
        return { start: start ?? "", end: end ?? "" };
      });
  });
  const { hours } = days.length === WEEKDAYS.length ? parseBusinessHours(value) : {};
  const result = hours ?? DEFAULT_BUSINESS_HOURS;
  // Organizations have a handful of distinct weeks: remember them, within bounds.
  if (decoded.size >= 1000) decoded.clear();
  decoded.set(text, result);
  return result;
}
