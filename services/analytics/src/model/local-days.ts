import { shiftDate } from "@voiceops/platform";
import { DateTime } from "luxon";

// Opening hours (WeeklyHours, DEFAULT_BUSINESS_HOURS, isOpenAt) live in @voiceops/platform.

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
