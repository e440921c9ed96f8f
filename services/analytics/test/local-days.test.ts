import { describe, expect, it } from "vitest";
import { DEFAULT_BUSINESS_HOURS, isOpenAt } from "@voiceops/platform";
import { shiftDate } from "@voiceops/platform";
import { lastLocalDates, startOfLocalDate } from "../src/model/local-days.js";

const HOUR = 3_600_000;
const hoursBetween = (zone: string, from: string, to: string) =>
  (startOfLocalDate(zone, to).getTime() - startOfLocalDate(zone, from).getTime()) / HOUR;

describe("local days", () => {
  it("lists the last days of the zone, today last", () => {
    expect(lastLocalDates("America/New_York", 3, new Date("2026-03-09T03:00:00Z"))).toEqual([
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
    ]);
    expect(lastLocalDates("Asia/Kolkata", 1, new Date("2026-06-01T20:00:00Z"))).toEqual(["2026-06-02"]);
    expect(lastLocalDates("UTC", 2, new Date("2027-01-01T00:00:00Z"))).toEqual(["2026-12-31", "2027-01-01"]);
    expect(shiftDate("2028-03-01", -1)).toBe("2028-02-29");
  });

  it("has 23- and 25-hour days at the daylight-saving changes", () => {
    expect(hoursBetween("America/New_York", "2026-03-08", "2026-03-09")).toBe(23);
    expect(hoursBetween("America/New_York", "2026-03-07", "2026-03-08")).toBe(24);
    expect(hoursBetween("America/Chicago", "2026-11-01", "2026-11-02")).toBe(25);
    expect(startOfLocalDate("America/Chicago", "2026-11-01").toISOString()).toBe("2026-11-01T05:00:00.000Z");
    expect(startOfLocalDate("Asia/Kolkata", "2026-06-02").toISOString()).toBe("2026-06-01T18:30:00.000Z");
  });
});

describe("opening hours", () => {
  const newYork = { timezone: "America/New_York", hours: DEFAULT_BUSINESS_HOURS };

  it("keeps 08:00 local on both sides of a daylight-saving change", () => {
    // Friday 2026-03-06 (UTC-5) and Monday 2026-03-09 (UTC-4) around the US change.
    expect(isOpenAt(newYork, new Date("2026-03-06T12:59:00Z"))).toBe(false);
    expect(isOpenAt(newYork, new Date("2026-03-06T13:00:00Z"))).toBe(true);
    expect(isOpenAt(newYork, new Date("2026-03-09T11:59:00Z"))).toBe(false);
    expect(isOpenAt(newYork, new Date("2026-03-09T12:00:00Z"))).toBe(true);
    expect(isOpenAt(newYork, new Date("2026-03-09T20:59:00Z"))).toBe(true);
    expect(isOpenAt(newYork, new Date("2026-03-09T21:00:00Z"))).toBe(false);
  });

  it("is closed on days without hours, and reads 24:00 as the end of the day", () => {
    expect(isOpenAt(newYork, new Date("2026-03-08T16:00:00Z"))).toBe(false);
    const lateMonday = { timezone: "UTC", hours: { mon: [{ start: "18:00", end: "24:00" }] } };
    expect(isOpenAt(lateMonday, new Date("2026-06-01T23:59:00Z"))).toBe(true);
    expect(isOpenAt(lateMonday, new Date("2026-06-02T00:00:00Z"))).toBe(false);
  });
});
