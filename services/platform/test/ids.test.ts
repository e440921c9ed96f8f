import { describe, expect, it } from "vitest";
import { isUuid, newId } from "../src/ids.js";

describe("newId", () => {
  it("makes distinct v7 UUIDs that sort in the order they were made, many per millisecond", () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect((ids[i - 1] as string) < (ids[i] as string)).toBe(true);
    for (const id of ids.slice(0, 100)) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe("7"); // version
      expect("89ab").toContain(id[19]); // RFC 9562 variant
    }
    // The first 48 bits are the time in milliseconds.
    const before = Date.now();
    const ms = Number.parseInt(newId().replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});
