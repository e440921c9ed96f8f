import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { endOfLocalDay, isCalendarDate, isoInstant, localDate, zoneOffsetMinutes } from "../src/time.js";

const at = (iso: string) => new Date(iso);

describe("endOfLocalDay", () => {
  it("ends today at the next local midnight", () => {
    // 2026-11-21 20:00 in Chicago is 02:00 UTC on the 22nd; the local day ends at 06:00 UTC.
    expect(endOfLocalDay("America/Chicago", 0, at("2026-11-22T02:00:00Z")).toISOString()).toBe(
      "2026-11-22T06:00:00.000Z",
    );
  });

  it("counts N more local days", () => {
    expect(endOfLocalDay("America/Chicago", 2, at("2026-11-22T02:00:00Z")).toISOString()).toBe(
      "2026-11-24T06:00:00.000Z",
    );
  });

  it("follows the spring-forward day, which has 23 hours", () => {
    // 2026-03-08: Chicago moves from CST (-6) to CDT (-5). The 8th ends at 05:00 UTC on the 9th.
    expect(endOfLocalDay("America/Chicago", 0, at("2026-03-08T12:00:00Z")).toISOString()).toBe(
      "2026-03-09T05:00:00.000Z",
    );
  });

  it("follows the fall-back day, which has 25 hours", () => {
    // 2026-11-01: Chicago moves from CDT (-5) back to CST (-6). The 1st ends at 06:00 UTC on the 2nd.
    expect(endOfLocalDay("America/Chicago", 0, at("2026-11-01T12:00:00Z")).toISOString()).toBe(
      "2026-11-02T06:00:00.000Z",
    );
  });

  it("uses the organization's zone, not the server's", () => {
    const now = at("2026-11-21T23:30:00Z");
    expect(localDate(now, "Asia/Tokyo")).toBe("2026-11-22");
    expect(localDate(now, "America/Los_Angeles")).toBe("2026-11-21");
    const tokyoEnd = DateTime.fromJSDate(endOfLocalDay("Asia/Tokyo", 0, now), { zone: "Asia/Tokyo" });
    expect(tokyoEnd.toISO()).toBe("2026-11-23T00:00:00.000+09:00");
  });
});

describe("isCalendarDate (the date field rule)", () => {
  it("takes real YYYY-MM-DD dates only", () => {
    for (const text of ["2026-11-21", "2024-02-29", "0001-01-01", "9999-12-31"])
      expect(isCalendarDate(text), text).toBe(true);
    for (const text of [
      "2026-02-29",
      "2026-13-01",
      "2026-11-31",
      "0000-01-01",
      "2026-1-5",
      "2026-11-21T00:00:00Z",
      "",
      "tomorrow",
    ])
      expect(isCalendarDate(text), text).toBe(false);
  });
});

describe("zoneOffsetMinutes", () => {
  it("agrees with the zone database at every quarter hour of a year, transition days included", () => {
    // Whole-hour DST (New York, Chicago), a half-hour DST (Lord Howe), a 45-minute zone without DST
    // (Kathmandu), a southern-hemisphere DST (Santiago) and UTC.
    const zones = [
      "America/New_York",
      "America/Chicago",
      "Australia/Lord_Howe",
      "Asia/Kathmandu",
      "America/Santiago",
      "UTC",
    ];
    const from = Date.parse("2026-01-01T00:00:00Z");
    const to = Date.parse("2027-01-01T00:00:00Z");
    for (const zone of zones) {
      const mismatches: string[] = [];
      for (let ms = from; ms < to; ms += 15 * 60_000) {
        const expected = DateTime.fromMillis(ms, { zone }).offset;
        // Twice: the second answer comes from the memo.
        for (const actual of [zoneOffsetMinutes(zone, ms), zoneOffsetMinutes(zone, ms + 60_000 - 1)]) {
          if (actual !== expected) mismatches.push(`${zone} ${new Date(ms).toISOString()}: ${actual} vs ${expected}`);
        }
      }
      expect(mismatches.slice(0, 5), zone).toEqual([]);
    }
  });
});

describe("isoInstant", () => {
  it("writes what toISOString writes, at every hour, minute, second and millisecond of days across the calendar", () => {
    const DAY = 24 * 60 * 60 * 1000;
    const days = [
      Date.parse("2026-11-29T00:00:00Z"),
      Date.parse("2024-02-29T00:00:00Z"),
      Date.parse("1970-01-01T00:00:00Z"),
      Date.parse("1969-12-31T00:00:00Z"),
      Date.parse("0001-01-01T00:00:00Z"),
      Date.parse("9999-12-31T00:00:00Z"),
    ];
    const offsets = [0, 1, 999, 1_000, 59_999, 60_000, 3_599_999, 3_600_000, 43_210_987, DAY - 1];
    for (let ms = 0; ms < DAY; ms += 997_331) offsets.push(ms);
    for (const day of days)
      for (const offset of offsets) expect(isoInstant(day + offset)).toBe(new Date(day + offset).toISOString());
  });

  it("writes years outside 0000-9999 and the limits of Date as toISOString does, and throws where it throws", () => {
    for (const ms of [-62_198_755_200_001, 253_402_300_800_000, 8.64e15, -8.64e15, -1, 1.5])
      expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
    for (const ms of [8.64e15 + 1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => isoInstant(ms)).toThrow(RangeError);
  });
});
