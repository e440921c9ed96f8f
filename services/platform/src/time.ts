import { DateTime } from "luxon";

/**
 * The instant at which local day today+days ends in the given IANA zone (the start of the
 * following local day), daylight-saving aware. "Due by end of day" means due_at < this instant.
 */
export function endOfLocalDay(zone: string, days: number, now: Date = new Date()): Date {
  return DateTime.fromJSDate(now, { zone })
    .startOf("day")
    .plus({ days: days + 1 })
    .toJSDate();
}

/** Local calendar date (YYYY-MM-DD) of an instant in a zone. */
export function localDate(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toISODate() ?? "";
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether a text is a calendar date written YYYY-MM-DD (the `date` field rule). */
export function isCalendarDate(text: string): boolean {
  const match = CALENDAR_DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const UTC_DAY_MS = 24 * 60 * 60 * 1000;

/** A calendar date (YYYY-MM-DD) moved by whole days (calendar arithmetic, no time zone involved). */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * UTC_DAY_MS).toISOString().slice(0, 10);
}
