import { DateTime } from "luxon";

// Calling windows: local times HH:MM on some days of the week, read in an IANA zone with luxon
// per local date (so a window keeps its local hours across daylight-saving changes), and always
// held inside the legal calling hours 08:00..21:00.

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type WeekdayName = (typeof WEEKDAYS)[number];

export interface CallingWindow {
  /** "HH:MM", 24-hour. */
  start: string;
  end: string;
  days: WeekdayName[];
}

/** The earliest and latest local times any call may be made (the TCPA hours). */
const LEGAL_START = "08:00";
const LEGAL_END = "21:00";

/** A campaign's window when the client gives none. */
export const DEFAULT_CAMPAIGN_WINDOW: CallingWindow = {
  start: "09:00",
  end: "20:00",
  days: ["mon", "tue", "wed", "thu", "fri", "sat"],
};

/** The window of one-off (quick and entity) calls: the legal hours, every day. */
export const ONE_OFF_WINDOW: CallingWindow = { start: LEGAL_START, end: LEGAL_END, days: [...WEEKDAYS] };

const HH_MM = /^([01]\d|2[0-4]):([0-5]\d)$/;

/** Minutes since midnight of "HH:MM", or undefined when the text is not such a time. */
export function parseClock(text: string): number | undefined {
  const match = HH_MM.exec(text.trim());
  if (!match) return undefined;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return minutes > 24 * 60 ? undefined : minutes;
}

function formatClock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/** The window held inside the legal hours: an earlier start or a later end is moved to the bound. */
export function clampWindow(window: CallingWindow): CallingWindow {
  const legalStart = parseClock(LEGAL_START) as number;
  const legalEnd = parseClock(LEGAL_END) as number;
  const start = Math.min(Math.max(parseClock(window.start) ?? legalStart, legalStart), legalEnd);
  const end = Math.max(Math.min(parseClock(window.end) ?? legalEnd, legalEnd), legalStart);
  const days = WEEKDAYS.filter((day) => window.days.includes(day));
  return { start: formatClock(start), end: formatClock(end), days };
}

export interface Opening {
  opensAt: Date;
  closesAt: Date;
}

/**
 * The opening of the window that contains `now`, else the next one; undefined when the window
 * never opens (no days, or start not before end). Each day's bounds are computed from that
 * local date in the zone, so 08:00 stays 08:00 local on both sides of a DST change.
 */
export function currentOrNextOpening(now: Date, window: CallingWindow, zone: string): Opening | undefined {
  const clamped = clampWindow(window);
  const start = parseClock(clamped.start) as number;
  const end = parseClock(clamped.end) as number;
  if (start >= end || clamped.days.length === 0) return undefined;
  const today = DateTime.fromJSDate(now, { zone });
  if (!today.isValid) return undefined;
  for (let offset = 0; offset <= 7; offset++) {
    const date = today.plus({ days: offset });
    if (!clamped.days.includes(WEEKDAYS[date.weekday - 1] as WeekdayName)) continue;
    const at = (minutes: number) =>
      DateTime.fromObject(
        { year: date.year, month: date.month, day: date.day, hour: Math.floor(minutes / 60), minute: minutes % 60 },
        { zone },
      ).toJSDate();
    const closesAt = at(end);
    if (now.getTime() < closesAt.getTime()) return { opensAt: at(start), closesAt };
  }
  return undefined;
}

/** Whether a call may be made at `now`. */
export function isOpen(now: Date, window: CallingWindow, zone: string): boolean {
  const opening = currentOrNextOpening(now, window, zone);
  return opening !== undefined && opening.opensAt.getTime() <= now.getTime();
}
