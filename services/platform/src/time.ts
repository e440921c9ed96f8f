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

/** The largest distance from the epoch a JavaScript Date holds, in ms. */
const DATE_LIMIT_MS = 8.64e15;
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
/** UTC day number → its "YYYY-MM-DDT", for the days written lately (a response's are few). */
const dayPrefixes = new Map<number, string>();
const DAY_PREFIX_MEMO_SIZE = 4096;

/**
 * An instant (ms since the epoch) as Date's toISOString writes it, in about a tenth of the time:
 * a page of 50 contacts writes 100 timestamps, which took a third of writing the page as JSON.
 */
export function isoInstant(ms: number): string {
  if (!(ms >= -DATE_LIMIT_MS && ms <= DATE_LIMIT_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / UTC_DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    const midnight = new Date(day * UTC_DAY_MS).toISOString();
    prefix = midnight.slice(0, midnight.indexOf("T") + 1);
    if (dayPrefixes.size >= DAY_PREFIX_MEMO_SIZE) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  const ofDay = ms - day * UTC_DAY_MS;
  const millis = ofDay % 1000;
  const seconds = Math.floor(ofDay / 1000);
  return `${prefix}${TWO_DIGITS[Math.floor(seconds / 3600)]}:${TWO_DIGITS[Math.floor(seconds / 60) % 60]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[millis]}Z`;
}

const QUARTER_HOUR_MS = 15 * 60 * 1000;
/** `${zone}|${utcDay}` → the offset of that whole UTC day, or null when it changes during it. */
const dayOffsets = new Map<string, number | null>();
/** `${zone}|${quarterHour}` → the offset, for the days on which it changes. */
const quarterOffsets = new Map<string, number>();
const OFFSET_MEMO_SIZE = 50_000;

function offsetFromIntl(zone: string, ms: number): number {
  return DateTime.fromMillis(ms, { zone }).offset;
}

function remember<V>(memo: Map<string, V>, key: string, value: V): V {
  if (memo.size >= OFFSET_MEMO_SIZE) memo.clear();
  memo.set(key, value);
  return value;
}

/**
 * A zone's UTC offset in minutes at an instant. Asking Intl is the costly part of time-zone
 * arithmetic and answers the same for every instant of almost every day, so the offset is
 * remembered per UTC day, and per quarter hour on a day it changes (transitions fall on
 * quarter hours).
 */
export function zoneOffsetMinutes(zone: string, ms: number): number {
  const day = Math.floor(ms / UTC_DAY_MS);
  const dayKey = `${zone}|${day}`;
  let whole = dayOffsets.get(dayKey);
  if (whole === undefined) {
    const first = offsetFromIntl(zone, day * UTC_DAY_MS);
    whole = remember(dayOffsets, dayKey, first === offsetFromIntl(zone, (day + 1) * UTC_DAY_MS - 1) ? first : null);
  }
  if (whole !== null) return whole;
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  const quarterKey = `${zone}|${quarter}`;
  return (
    quarterOffsets.get(quarterKey) ??
    remember(quarterOffsets, quarterKey, offsetFromIntl(zone, quarter * QUARTER_HOUR_MS))
  );
}
