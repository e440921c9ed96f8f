import { describe, expect, it } from "vitest";
import { looksLikePhone, normalizePhone, phoneDigits } from "../src/phone.js";

describe("normalizePhone", () => {
  it.each([
    ["(555) 010-2000", "US", "+15550102000"],
    ["555-010-2000", "US", "+15550102000"],
    ["+1 555 010 2000", "US", "+15550102000"],
    ["+15550102000", "GB", "+15550102000"],
    ["020 7946 0958", "GB", "+442079460958"],
    ["(415) 555-2671", "CA", "+14155552671"],
  ])("%s in %s is %s", (text, country, expected) => {
    expect(normalizePhone(text, country)).toBe(expected);
  });

  it("rejects text that is no phone number", () => {
    expect(normalizePhone("call me", "US")).toBeUndefined();
    expect(normalizePhone("12", "US")).toBeUndefined();
    expect(normalizePhone("1234567890123456789", "US")).toBeUndefined();
  });

  it("keeps short service numbers as digits so they still match", () => {
    expect(normalizePhone("911", "US")).toBe("+911");
  });
});

describe("phone search helpers", () => {
  it("reads digits whatever the formatting", () => {
    expect(phoneDigits("(555) 010-2000")).toBe("5550102000");
  });

  it("tells phone-like text from names", () => {
    expect(looksLikePhone("+1 (555) 010-2000")).toBe(true);
    expect(looksLikePhone("555.010.2000")).toBe(true);
    expect(looksLikePhone("Jane 555")).toBe(false);
    expect(looksLikePhone("12")).toBe(false);
  });
});
