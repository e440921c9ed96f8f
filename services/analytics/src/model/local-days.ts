import { DateTime } from "luxon";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A calendar date (YYYY-MM-DD) moved by whole days. */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The last `days` local dates of a zone, oldest first, today last: calendar arithmetic from
 * today's local date (one time-zone conversion, whatever `days` is).
 */
export function lastLocalDates(zone: string, days: number, now: Date): string[] {
  const today = DateTime.fromJSDate(now, { zone }).toISODate() ?? "";
  return Array.from({ length: days }, (_, index) => shiftDate(today, index - days + 1));
}

/** The instant a local date starts in a zone (a DST day is 23 or 25 hours to the next). */
export function startOfLocalDate(zone: string, date: string): Date {
  return DateTime.fromISO(date, { zone }).startOf("day").toJSDate();
}

export interface OpeningInterval {
  /** "HH:MM", local time. */
  start: string;
  /** "HH:MM"; "24:00" is the end of the day. */
  end: string;
}

/** Opening hours per weekday: mon, tue, wed, thu, fri, sat, sun. */
export type WeeklyHours = Record<string, OpeningInterval[]>;

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

export const DEFAULT_BUSINESS_HOURS: WeeklyHours = {
  mon: [{ start: "08:00", end: "17:00" }],
  tue: [{ start: "08:00", end: "17:00" }],
  wed: [{ start: "08:00", end: "17:00" }],
  thu: [{ start: "08:00", end: "17:00" }],
  fri: [{ start: "08:00", end: "17:00" }],
  sat: [],
  sun: [],
};

/** A local time of a date, with that date's own offset: 08:00 stays 08:00 across a DST change. */
function at(day: DateTime, hhmm: string): DateTime {
  if (hhmm === "24:00") return day.plus({ days: 1 });
  return day.set({ hour: Number(hhmm.slice(0, 2)), minute: Number(hhmm.slice(3, 5)) });
}

/** Whether an instant falls in the opening hours of its local day. */
export function isOpenAt(settings: { timezone: string; hours: WeeklyHours }, instant: Date): boolean {
  const local = DateTime.fromJSDate(instant, { zone: settings.timezone });
  const day = local.startOf("day");
  const weekday = WEEKDAYS[local.weekday - 1] ?? "mon";
  return (settings.hours[weekday] ?? []).some((interval) => local >= at(day, interval.start) && local < at(day, interval.end));
}
