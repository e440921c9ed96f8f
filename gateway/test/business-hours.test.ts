import { describe, expect, it } from "vitest";
import { DEFAULT_BUSINESS_HOURS } from "@voiceops/platform";
import { locs, testAdmin } from "@voiceops/platform/testing";

const admin = testAdmin();
const day = (start: string, end: string) => ({ start, end });

describe("organizations' business hours (admin API)", () => {
  it("defaults to Monday to Friday 08:00-17:00", async () => {
    const created = await admin.request("POST", "/admin/organizations", { name: "Hours Default" });
    expect(created.status).toBe(201);
    expect(created.body.business_hours).toEqual({
      mon: [day("08:00", "17:00")],
      tue: [day("08:00", "17:00")],
      wed: [day("08:00", "17:00")],
      thu: [day("08:00", "17:00")],
      fri: [day("08:00", "17:00")],
      sat: [],
      sun: [],
    });
    expect(created.body.business_hours).toEqual(DEFAULT_BUSINESS_HOURS);
  });

  it("stores the week given on create; days left out are closed; intervals come back in order", async () => {
    const hours = { mon: [day("13:00", "24:00"), day("07:30", "12:00")], sat: [day("00:00", "24:00")] };
    const created = await admin.request("POST", "/admin/organizations", { name: "Hours Given", business_hours: hours });
    expect(created.status).toBe(201);
    const expected = {
      mon: [day("07:30", "12:00"), day("13:00", "24:00")],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [day("00:00", "24:00")],
      sun: [],
    };
    expect(created.body.business_hours).toEqual(expected);
    expect((await admin.request("GET", `/admin/organizations/${created.body.id}`)).body.business_hours).toEqual(
      expected,
    );
  });

  it("PATCH replaces the whole week and leaves it alone when absent", async () => {
    const created = await admin.request("POST", "/admin/organizations", { name: "Hours Patched" });
    const patched = await admin.request("PATCH", `/admin/organizations/${created.body.id}`, {
      business_hours: { sun: [day("10:00", "14:00")] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.business_hours).toEqual({
      mon: [],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [],
      sun: [day("10:00", "14:00")],
    });
    const renamed = await admin.request("PATCH", `/admin/organizations/${created.body.id}`, { name: "Hours Renamed" });
    expect(renamed.body).toMatchObject({ name: "Hours Renamed", business_hours: patched.body.business_hours });
    // Back-to-back intervals do not overlap (half-open).
    const adjacent = await admin.request("PATCH", `/admin/organizations/${created.body.id}`, {
      business_hours: { mon: [day("08:00", "12:00"), day("12:00", "16:00")] },
    });
    expect(adjacent.status).toBe(200);
    expect(adjacent.body.business_hours.mon).toEqual([day("08:00", "12:00"), day("12:00", "16:00")]);
  });

  it("422 naming each bad interval, weekday or value, and nothing written", async () => {
    const created = await admin.request("POST", "/admin/organizations", { name: "Hours Invalid" });
    const bad = await admin.request("PATCH", `/admin/organizations/${created.body.id}`, {
      name: "Never Stored",
      business_hours: {
        mon: [day("08:00", "07:00")],
        tue: [day("08:00", "12:00"), day("11:00", "13:00")],
        wed: [day("8:00", "12:00")],
        thu: [{ start: "09:00" }],
        fri: [day("24:00", "24:00")],
        sat: "closed",
        someday: [],
      },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual([
      ["body", "business_hours", "mon", 0, "end"],
      ["body", "business_hours", "tue", 1],
      ["body", "business_hours", "wed", 0, "start"],
      ["body", "business_hours", "thu", 0, "end"],
      ["body", "business_hours", "fri", 0, "start"],
      ["body", "business_hours", "sat"],
      ["body", "business_hours", "someday"],
    ]);
    for (const entry of bad.body.detail)
      expect(entry).toMatchObject({ msg: expect.any(String), type: expect.any(String) });
    const read = await admin.request("GET", `/admin/organizations/${created.body.id}`);
    expect(read.body).toMatchObject({ name: "Hours Invalid", business_hours: DEFAULT_BUSINESS_HOURS });

    const equal = await admin.request("POST", "/admin/organizations", {
      name: "Hours Equal",
      business_hours: { mon: [day("09:00", "09:00")] },
    });
    expect(equal.status).toBe(422);
    expect(locs(equal.body)).toEqual([["body", "business_hours", "mon", 0, "end"]]);
    const notObject = await admin.request("POST", "/admin/organizations", { name: "Hours List", business_hours: [] });
    expect(locs(notObject.body)).toEqual([["body", "business_hours"]]);
    const late = await admin.request("POST", "/admin/organizations", {
      name: "Hours Late",
      business_hours: { mon: [day("08:00", "24:30")] },
    });
    expect(locs(late.body)).toEqual([["body", "business_hours", "mon", 0, "end"]]);
  });
});
