import { DateTime } from "luxon";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  eventually,
  expectStatus,
  OPEN_AROUND_THE_CLOCK,
  tenantFactory,
  type ApiClient,
  type Tenant,
} from "@voiceops/platform/testing";

const ZONE = "America/Chicago";
const tenant = tenantFactory({ timezone: ZONE });
const internalKey = inject("internalApiKey");

/** Polls a statistics route until `check` accepts its body (the figures follow events). */
async function settle<T = any>(client: ApiClient, path: string, check: (body: T) => boolean): Promise<T> {
  let last: T | undefined;
  try {
    return await eventually(async () => {
      last = expectStatus(await client.get<T>(path), 200);
      return check(last) ? last : undefined;
    }, 60_000);
  } catch (error) {
    throw new Error(`${path} never settled; last answer ${JSON.stringify(last)}`, { cause: error });
  }
}

function activity(client: ApiClient, body: Record<string, unknown>) {
  return client.request("POST", "/api/activities", { body, headers: { "x-internal-key": internalKey } });
}

/**
 * The latest instant at `hour`:00 local time on a Monday..Friday (inside default opening hours)
 * that is at least 4 hours past, so it stays outside the 3-hour window counted below whatever
 * the time of day the tests run.
 */
function lastWeekdayAt(hour: number): DateTime {
  const latest = DateTime.now().minus({ hours: 4 });
  let day = DateTime.now().setZone(ZONE).set({ hour, minute: 0, second: 0, millisecond: 0 });
  while (day > latest || day.weekday > 5) day = day.minus({ days: 1 });
  return day;
}

describe("statistics from comms activities", () => {
  let t: Tenant;
  const session = "stats-session-1";
  const inHours = lastWeekdayAt(10);

  beforeAll(async () => {
    t = await tenant();
    // 03:00 yesterday is outside every day's default opening hours.
    const afterHours = DateTime.now()
      .setZone(ZONE)
      .minus({ days: 1 })
      .set({ hour: 3, minute: 0, second: 0, millisecond: 0 });
    for (const [type, at, sessionId] of [
      ["CALL_ENDED", inHours, session],
      ["CALL_STARTED", inHours, session],
      ["CALL_ENDED", afterHours, "stats-session-2"],
      ["SMS_SENT", DateTime.now().minus({ hours: 1 }), undefined],
      ["WEB_CHAT", DateTime.now().minus({ hours: 2 }), undefined],
    ] as const) {
      expectStatus(
        await activity(t.owner, { activity_type: type, occurred_at: at.toUTC().toISO(), session_id: sessionId }),
        201,
      );
    }
  });

  it("counts calls, messages and after-hours calls by local day", async () => {
    const dashboard = await settle(
      t.owner,
      "/api/statistics/dashboard",
      (b) => b.calls_last_7_days === 2 && b.messages_last_7_days === 2,
    );
    expect(dashboard.calls_today).toBe(inHours.hasSame(DateTime.now().setZone(ZONE), "day") ? 1 : 0);
    const roi = await settle(t.owner, "/api/statistics/roi?days=7", (b) => b.calls_answered === 2);
    expect(roi.after_hours_calls_answered).toBe(1);
    const series = await settle(
      t.owner,
      "/api/statistics/metrics/time-series?metric=sms_messages&days=2",
      (b) => b.points.at(-1)?.value + b.points.at(0)?.value === 1,
    );
    expect(series.points).toHaveLength(2);
  });

  it("counts activities by type over the last hours", async () => {
    const byType = await settle(t.owner, "/api/statistics/activities/by-type?hours_back=3", (b) => b.total === 2);
    expect(byType.counts).toMatchObject({ SMS_SENT: 1, WEB_CHAT: 1, CALL_ENDED: 0 });
    const week = await settle(t.owner, "/api/statistics/activities/by-type?hours_back=168", (b) => b.total === 5);
    expect(week.counts).toMatchObject({ CALL_ENDED: 2, CALL_STARTED: 1 });
  });

  it("a deleted call leaves the figures, once", async () => {
    expect(expectStatus(await t.owner.delete(`/api/calls/${session}`), 200)).toEqual({
      session_id: session,
      deleted_activities: 2,
    });
    const week = await settle(t.owner, "/api/statistics/activities/by-type?hours_back=168", (b) => b.total === 3);
    expect(week.counts).toMatchObject({ CALL_ENDED: 1, CALL_STARTED: 0 });
    const roi = await settle(t.owner, "/api/statistics/roi?days=7", (b) => b.calls_answered === 1);
    expect(roi.after_hours_calls_answered).toBe(1);
  });

  it("after-hours calls follow the organization's opening hours when they change", async () => {
    // The call left is at 03:00 local: after hours by default, inside hours open around the clock.
    expectStatus(
      await t.admin.request("PATCH", `/admin/organizations/${t.orgId}`, { business_hours: OPEN_AROUND_THE_CLOCK }),
      200,
    );
    await settle(
      t.owner,
      "/api/statistics/roi?days=7",
      (b) => b.calls_answered === 1 && b.after_hours_calls_answered === 0,
    );
    expectStatus(await t.admin.request("PATCH", `/admin/organizations/${t.orgId}`, { business_hours: {} }), 200);
    await settle(
      t.owner,
      "/api/statistics/roi?days=7",
      (b) => b.calls_answered === 1 && b.after_hours_calls_answered === 1,
    );
    const other = await tenant();
    expect(expectStatus(await other.owner.get("/api/statistics/roi?days=7"), 200)).toMatchObject({
      calls_answered: 0,
      after_hours_calls_answered: 0,
    });
  });
});

describe("statistics from field operations", () => {
  let t: Tenant;
  let technician: string;

  beforeAll(async () => {
    t = await tenant();
    technician = expectStatus(await t.owner.post("/api/technicians", { name: "Tess" }), 200).id;
  });

  it("dispatches_active follows dispatches from creation to completion", async () => {
    const request = expectStatus(await t.owner.post("/api/service-requests", { description: "Burst pipe" }), 201);
    const dispatch = expectStatus(
      await t.owner.post("/api/technicians/dispatch", { service_request_id: request.id, technician_id: technician }),
      200,
    );
    await settle(t.owner, "/api/statistics/dashboard", (b) => b.dispatches_active === 1);
    expectStatus(await t.owner.put(`/api/technicians/dispatch/${dispatch.id}`, { status: "completed" }), 200);
    await settle(t.owner, "/api/statistics/dashboard", (b) => b.dispatches_active === 0);
  });

  it("technicians_on_call counts a shift covering now; a later shift is upcoming until cancelled", async () => {
    const now = DateTime.now();
    expectStatus(
      await t.owner.post("/api/technicians/on-call/schedule", {
        technician_id: technician,
        start_at: now.minus({ hours: 1 }).toUTC().toISO(),
        end_at: now.plus({ hours: 2 }).toUTC().toISO(),
      }),
      200,
    );
    const later = expectStatus(
      await t.owner.post("/api/technicians/on-call/schedule", {
        technician_id: technician,
        start_at: now.plus({ days: 1 }).toUTC().toISO(),
        end_at: now.plus({ days: 1, hours: 8 }).toUTC().toISO(),
      }),
      200,
    );
    await settle(t.owner, "/api/statistics/dashboard", (b) => b.technicians_on_call === 1);
    const upcoming = await settle(t.owner, "/api/statistics/upcoming", (b) => b.total === 1);
    expect(upcoming.items[0]).toMatchObject({ type: "on_call_shift", ref_id: later.id, title: "On call: Tess" });
    expect((await t.owner.delete(`/api/technicians/on-call/schedule/${later.id}`)).status).toBe(204);
    await settle(t.owner, "/api/statistics/upcoming", (b) => b.total === 0);
  });
});

/** A fixed-offset zone where it is about noon now, so that a call is inside every calling window. */
function middayZone(): string {
  let offset = 12 - new Date().getUTCHours();
  if (offset > 14) offset -= 24;
  if (offset < -12) offset += 24;
  // Etc/GMT names count the other way: Etc/GMT-3 is three hours ahead of UTC.
  return offset === 0 ? "UTC" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

describe("statistics from outbound calls", () => {
  it("a call handed to the voice runtime is upcoming until its result is known", async () => {
    const t = await tenantFactory({ timezone: middayZone() })();
    const call = expectStatus(await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550409001" }), 202);
    const upcoming = await settle(t.owner, "/api/statistics/upcoming", (b) => b.total === 1);
    expect(upcoming.items[0]).toMatchObject({ type: "campaign_call", ref_id: call.id, title: "Call +15550409001" });
    expectStatus(await t.owner.post(`/api/call-requests/${call.id}/cancel`), 200);
    await settle(t.owner, "/api/statistics/upcoming", (b) => b.total === 0);
  });
});

describe("statistics from appointments", () => {
  it("counts bookings, statuses and upcoming appointments; a reschedule moves a booking, it is not a new one", async () => {
    const t = await tenant();
    const type = expectStatus(
      await t.owner.post("/api/scheduling/types", {
        name: "Boiler check",
        duration_minutes: 60,
        min_notice_minutes: 0,
      }),
      201,
    );
    const { slots } = expectStatus(
      await t.owner.post("/api/scheduling/check-availability", { appointment_type_id: type.id }),
      200,
    );
    expect(slots.length).toBeGreaterThan(2);
    const [a, b, c] = slots as { start: string }[];
    const first = expectStatus(
      await t.owner.post("/api/scheduling/book", {
        appointment_type_id: type.id,
        start: a?.start,
        contact: { name: "Ann", phone_number: "+13125550177" },
      }),
      201,
    );
    const second = expectStatus(
      await t.owner.post("/api/scheduling/book", {
        appointment_type_id: type.id,
        start: b?.start,
        contact: { name: "Ben" },
      }),
      201,
    );

    await settle(t.owner, "/api/statistics/dashboard", (d) => d.appointments_upcoming === 2);
    const upcoming = await settle(
      t.owner,
      "/api/statistics/upcoming",
      (u) => u.items.filter((i: { type: string }) => i.type === "appointment").length === 2,
    );
    expect(upcoming.items.find((i: { ref_id: string }) => i.ref_id === first.id)).toMatchObject({
      type: "appointment",
      title: "Boiler check with Ann",
      contact_id: first.contact_id,
    });
    await settle(t.owner, "/api/statistics/roi?days=7", (r) => r.appointments_booked === 2);

    expectStatus(
      await t.owner.post("/api/scheduling/manage", {
        appointment_id: second.id,
        action: "cancel",
        reason: "no longer needed",
      }),
      200,
    );
    expectStatus(
      await t.owner.post("/api/scheduling/manage", { appointment_id: first.id, action: "reschedule", start: c?.start }),
      200,
    );
    const stats = await settle(
      t.owner,
      "/api/statistics/appointment-stats",
      (s) => s.total === 3 && s.counts.cancelled === 2,
    );
    expect(stats.counts).toEqual({ scheduled: 1, confirmed: 0, completed: 0, cancelled: 2, no_show: 0 });
    expect(
      (await settle(t.owner, "/api/statistics/dashboard", (d) => d.appointments_upcoming === 1)).appointments_upcoming,
    ).toBe(1);
    expect(expectStatus(await t.owner.get("/api/statistics/roi?days=7"), 200).appointments_booked).toBe(2);
  });
});
