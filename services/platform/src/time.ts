import { DateTime } from "luxon";

/**
 * The instant at which local day today+days ends in the given IANA zone (the start of the
 * following local day), daylight-saving aware. "Due by end of day" means due_at < this instant.
 */
export function endOfLocalDay(zone: string, days: number, now: Date = new Date()): Date {
  return DateTime.fromJSDate(now, { zone }).startOf("day").plus({ days: days + 1 }).toJSDate();
}

/** Local calendar date (YYYY-MM-DD) of an instant in a zone. */
export function localDate(instant: Date, zone: string): string {
  return DateTime.fromJSDate(instant, { zone }).toISODate() ?? "";
}
