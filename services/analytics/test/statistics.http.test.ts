import { DateTime } from "luxon";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, expectStatus, locs, tenantFactory, type ApiClient, type Tenant } from "@voiceops/platform/testing";

const tenant = tenantFactory({ timezone: "America/Chicago" });

/** Polls a statistics route until `check` accepts its body (the figures follow events). */
async function settle<T = any>(client: ApiClient, path: string, check: (body: T) => boolean): Promise<T> {
  return eventually(async () => {
    const body = expectStatus(await client.get<T>(path), 200);
    return check(body) ? body : undefined;
  }, 60_000);
}

describe("statistics from the other services' events", () => {
  let t: Tenant;
  let requests: Record<string, string>;

  beforeAll(async () => {
    t = await tenant();
    const contact = expectStatus(await t.owner.post("/api/contacts", { name: "Ada", status: "customer" }), 201);
    await t.owner.post("/api/contacts", { name: "Bob" });
    await t.owner.post("/api/contacts", { name: "Scraped Co", status: "prospect" });
    const dueTomorrow = DateTime.now()
      .setZone("America/Chicago")
      .plus({ days: 1 })
      .set({ hour: 10, minute: 0, second: 0, millisecond: 0 })
      .toUTC()
      .toISO();
    await t.owner.post("/api/leads", {
      name: "Cy",
      phone_number: "+13125550101",
      estimated_value_cents: 50_000,
      next_step: "Call back about the boiler",
      next_step_due_at: dueTomorrow,
    });
    await t.owner.post("/api/leads", {
      name: "Di",
      phone_number: "+13125550102",
      estimated_value_cents: 20_000,
      status: "won",
    });
    const open = expectStatus(
      await t.owner.post("/api/service-requests", {
        description: "Leak",
        contact_id: contact.id,
        priority: "HIGH",
        due_at: DateTime.now().plus({ days: 2 }).toUTC().toISO(),
      }),
      201,
    );
    const emergency = expectStatus(await t.owner.post("/api/service-requests", { description: "Gas smell" }), 201);
    const done = expectStatus(
      await t.owner.post("/api/service-requests", { description: "Old job", status: "completed", priority: "LOW" }),
      201,
    );
    const gone = expectStatus(await t.owner.post("/api/service-requests", { description: "Mistake" }), 201);
    expectStatus(await t.owner.post(`/api/service-requests/${emergency.id}/emergency?emergency_type=gas`), 200);
    expectStatus(await t.owner.post(`/api/service-requests/${open.id}/quote?quote_amount_cents=12000`), 200);
    expectStatus(await t.owner.post(`/api/service-requests/${done.id}/quote?quote_amount_cents=30000`), 200);
    expectStatus(await t.owner.put(`/api/service-requests/${done.id}/quote?status=approved`), 200);
    expect((await t.owner.delete(`/api/service-requests/${gone.id}`)).status).toBe(204);
    requests = { open: open.id, emergency: emergency.id, done: done.id };
  });

  it("dashboard: current counts of contacts, leads, requests, emergencies and quotes", async () => {
    const body = await settle(
      t.owner,
      "/api/statistics/dashboard",
      (b) => b.quotes_pending === 1 && b.service_requests_open === 2 && b.emergencies_active === 1,
    );
    expect(body).toEqual({
      contacts_total: 5,
      customers_total: 2,
      leads_open: 1,
      service_requests_open: 2,
      emergencies_active: 1,
      quotes_pending: 1,
      calls_today: 0,
      calls_last_7_days: 0,
      messages_last_7_days: 0,
      appointments_upcoming: 0,
      technicians_on_call: 0,
      dispatches_active: 0,
      generated_at: expect.stringMatching(/Z$/),
    });
  });

  it("service requests by status and by priority, every value present", async () => {
    const byStatus = await settle(t.owner, "/api/statistics/service-requests/by-status", (b) => b.total === 3);
    expect(byStatus).toEqual({
      counts: { new: 2, scheduled: 0, in_progress: 0, on_hold: 0, completed: 1, cancelled: 0 },
      total: 3,
    });
    const byPriority = await settle(t.owner, "/api/statistics/service-requests/by-priority", (b) => b.total === 3);
    expect(byPriority).toEqual({ counts: { LOW: 1, MEDIUM: 1, HIGH: 1, URGENT: 0 }, total: 3 });
  });

  it("roi: leads, requests and estimated value (lead estimates plus approved quotes)", async () => {
    const roi = await settle(t.owner, "/api/statistics/roi?days=7", (b) => b.estimated_value_cents === 100_000);
    expect(roi).toEqual({
      days: 7,
      calls_answered: 0,
      after_hours_calls_answered: 0,
      leads_created: 2,
      appointments_booked: 0,
      service_requests_created: 4,
      estimated_value_cents: 50_000 + 20_000 + 30_000,
    });
  });

  it("time series: one point per local day, oldest first, today last, zeros included", async () => {
    const series = await settle(
      t.owner,
      "/api/statistics/metrics/time-series?metric=service_requests&days=3",
      (b) => b.points.at(-1)?.value === 4,
    );
    const today = DateTime.now().setZone("America/Chicago");
    expect(series).toEqual({
      metric: "service_requests",
      days: 3,
      timezone: "America/Chicago",
      points: [
        { date: today.minus({ days: 2 }).toISODate(), value: 0 },
        { date: today.minus({ days: 1 }).toISODate(), value: 0 },
        { date: today.toISODate(), value: 4 },
      ],
    });
    const defaults = expectStatus(await t.owner.get("/api/statistics/metrics/time-series?metric=calls"), 200);
    expect(defaults.days).toBe(30);
    expect(defaults.points).toHaveLength(30);
    expect(defaults.points.every((p: { value: number }) => p.value === 0)).toBe(true);
  });

  it("upcoming: lead follow-ups and due requests, soonest first", async () => {
    const body = await settle(t.owner, "/api/statistics/upcoming?days=7", (b) => b.total === 2);
    expect(body.items.map((i: { type: string }) => i.type)).toEqual(["lead_follow_up", "service_request_due"]);
    expect(body.items[0]).toMatchObject({ title: "Call back about the boiler", contact_id: expect.any(String) });
    expect(body.items[1]).toMatchObject({ ref_id: requests.open, title: "Leak" });
    const short = expectStatus(await t.owner.get("/api/statistics/upcoming?days=7&limit=1"), 200);
    expect(short.items).toHaveLength(1);
    expect(short.total).toBe(2);
  });

  it("a closed request leaves the open counts and the upcoming list", async () => {
    expectStatus(await t.owner.put(`/api/service-requests/${requests.open}`, { status: "completed" }), 200);
    const body = await settle(t.owner, "/api/statistics/dashboard", (b) => b.service_requests_open === 1);
    expect(body.quotes_pending).toBe(1);
    const upcoming = await settle(t.owner, "/api/statistics/upcoming", (b) => b.total === 1);
    expect(upcoming.items[0].type).toBe("lead_follow_up");
  });

  it("another organization sees none of it", async () => {
    const other = await tenant();
    expect(expectStatus(await other.owner.get("/api/statistics/dashboard"), 200)).toMatchObject({
      contacts_total: 0,
      service_requests_open: 0,
      quotes_pending: 0,
    });
    expect(expectStatus(await other.owner.get("/api/statistics/service-requests/by-status"), 200).total).toBe(0);
    expect(expectStatus(await other.owner.get("/api/statistics/upcoming"), 200)).toEqual({ items: [], total: 0 });
  });
});

describe("statistics: parameters", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("422 for out-of-range and unknown values", async () => {
    expect(locs(expectStatus(await t.owner.get("/api/statistics/roi?days=0"), 422))).toEqual([["query", "days"]]);
    expect(locs(expectStatus(await t.owner.get("/api/statistics/roi?days=366"), 422))).toEqual([["query", "days"]]);
    expect(locs(expectStatus(await t.owner.get("/api/statistics/metrics/time-series"), 422))).toEqual([
      ["query", "metric"],
    ]);
    expect(locs(expectStatus(await t.owner.get("/api/statistics/metrics/time-series?metric=visits"), 422))).toEqual([
      ["query", "metric"],
    ]);
    expect(locs(expectStatus(await t.owner.get("/api/statistics/activities/by-type?hours_back=8761"), 422))).toEqual([
      ["query", "hours_back"],
    ]);
    expect(locs(expectStatus(await t.owner.get("/api/statistics/upcoming?days=91&limit=0"), 422))).toEqual([
      ["query", "days"],
      ["query", "limit"],
    ]);
  });

  it("defaults: roi over 30 days, activities over 24 hours, every type present", async () => {
    expect(expectStatus(await t.owner.get("/api/statistics/roi"), 200).days).toBe(30);
    const byType = expectStatus(await t.owner.get("/api/statistics/activities/by-type"), 200);
    expect(byType.hours_back).toBe(24);
    expect(Object.keys(byType.counts)).toContain("CALL_ENDED");
    expect(Object.keys(byType.counts)).toHaveLength(17);
    expect(byType.total).toBe(0);
    expect(expectStatus(await t.owner.get("/api/statistics/appointment-stats"), 200)).toEqual({
      counts: { scheduled: 0, confirmed: 0, completed: 0, cancelled: 0, no_show: 0 },
      upcoming_7_days: 0,
      total: 0,
    });
    expect(expectStatus(await t.owner.get("/api/statistics/portal-sessions"), 200)).toEqual({
      active_portal_tokens: 0,
    });
  });

  it("needs an API key", async () => {
    const res = await fetch(`${(t.owner as unknown as { baseUrl: string }).baseUrl}/api/statistics/dashboard`);
    expect(res.status).toBe(401);
  });
});

describe("GET /api/statistics/portal-sessions", () => {
  it("counts contacts with an active token: one per contact, revoked ones leave", async () => {
    const t = await tenant();
    const [a, b] = await Promise.all(
      ["A", "B"].map(async (name) => expectStatus(await t.owner.post("/api/contacts", { name }), 201).id as string),
    );
    expectStatus(await t.owner.post(`/api/contacts/${a}/portal-token`), 201);
    expectStatus(await t.owner.post(`/api/contacts/${a}/portal-token`), 201);
    expectStatus(await t.owner.post(`/api/contacts/${b}/portal-token`), 201);
    await settle(t.owner, "/api/statistics/portal-sessions", (body) => body.active_portal_tokens === 2);
    expect((await t.owner.delete(`/api/contacts/${a}/portal-token`)).status).toBe(204);
    await settle(t.owner, "/api/statistics/portal-sessions", (body) => body.active_portal_tokens === 1);
    expect((await t.owner.delete(`/api/contacts/${b}`)).status).toBe(204);
    await settle(t.owner, "/api/statistics/portal-sessions", (body) => body.active_portal_tokens === 0);
  });
});
