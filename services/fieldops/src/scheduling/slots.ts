import { DateTime } from "luxon";
import { endOfLocalDay, localDate, openingIntervalsOn, shiftDate, type WeeklyHours } from "@voiceops/platform";

// Slot arithmetic, in memory, on epoch milliseconds. Intervals are half-open [start, end).

const MINUTE_MS = 60_000;

export interface SlotRules {
  durationMinutes: number;
  intervalMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  minNoticeMinutes: number;
  maxDaysAhead: number;
}

export interface Span {
  start: number;
  end: number;
}

/** Whole days from one calendar date to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round(DateTime.fromISO(to, { zone: "UTC" }).diff(DateTime.fromISO(from, { zone: "UTC" }), "days").days);
}

/** The instants local dates [from, to] of a zone cover: from's midnight to the midnight after `to`. */
export function localDateRange(zone: string, from: string, to: string): Span {
  return {
    start: DateTime.fromISO(from, { zone }).startOf("day").toMillis(),
    end: DateTime.fromISO(to, { zone }).startOf("day").plus({ days: 1 }).toMillis(),
  };
}

/**
 * Slot starts and ends within `range`, the way the business lays them out: each date's opening
 * hours expanded in the organization's zone with that date's own offset, steps of the interval
 * from each opening's start, a slot kept when it ends within the opening, starts at least the
 * minimum notice after now and before the end of local day today + max_days_ahead. Soonest first.
 */
export function candidateSlots(hours: WeeklyHours, orgZone: string, range: Span, rules: SlotRules, now: Date): Span[] {
  const earliest = now.getTime() + rules.minNoticeMinutes * MINUTE_MS;
  const horizon = endOfLocalDay(orgZone, rules.maxDaysAhead, now).getTime();
  const from = Math.max(range.start, earliest);
  const to = Math.min(range.end, horizon);
  if (from >= to) return [];
  const duration = rules.durationMinutes * MINUTE_MS;
  const step = rules.intervalMinutes * MINUTE_MS;
  const slots: Span[] = [];
  // Every local date of the org whose openings may meet the range (an opening ends by 24:00).
  const lastDate = localDate(new Date(to - 1), orgZone);
  for (let date = localDate(new Date(from), orgZone); date <= lastDate; date = shiftDate(date, 1)) {
    for (const opening of openingIntervalsOn(hours, orgZone, date)) {
      const openEnd = opening.end;
      for (let start = opening.start; start + duration <= openEnd; start += step) {
        if (start >= from && start < to) slots.push({ start, end: start + duration });
      }
    }
  }
  return slots.sort((a, b) => a.start - b.start);
}

/** What a slot holds of its resource: the slot widened by the type's buffers. */
export function heldSpan(slot: Span, rules: SlotRules): Span {
  return {
    start: slot.start - rules.bufferBeforeMinutes * MINUTE_MS,
    end: slot.end + rules.bufferAfterMinutes * MINUTE_MS,
  };
}

/** Busy spans sorted by start with overlapping or touching ones merged. */
function mergeSpans(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/**
 * A resource's busy time, merged, asked about spans in increasing start order: the cursor only
 * moves forward, so checking every slot of a range costs one pass over the busy spans.
 */
export class BusyCalendar {
  private cursor = 0;
  private readonly spans: Span[];

  constructor(spans: Span[]) {
    this.spans = mergeSpans(spans);
  }

  /** Whether the span meets no busy span; spans must come in non-decreasing start order. */
  isFree(span: Span): boolean {
    while (this.cursor < this.spans.length && (this.spans[this.cursor] as Span).end <= span.start) this.cursor++;
    const next = this.spans[this.cursor];
    return !next || next.start >= span.end;
  }
}
