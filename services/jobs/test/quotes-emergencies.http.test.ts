import { beforeAll, describe, expect, inject, it } from "vitest";
import { type ApiClient, expectStatus, locs, newTenant, testAdmin, type Tenant } from "@voiceops/platform/testing";

const baseUrl = inject("baseUrl");
const admin = testAdmin();
const UNKNOWN = "018f0000-0000-7000-8000-000000000000";

async function createRequest(client: ApiClient, body: Record<string, unknown> = {}): Promise<{ id: string }> {
  return expectStatus(await client.post("/api/service-requests", { description: "Job", ...body }), 201);
}

describe("quotes", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(baseUrl, admin);
  });

  it("POST takes its fields as query parameters and leaves the quote pending", async () => {
    const { id } = await createRequest(t.owner);
    const res = await t.owner.post(
      `/api/service-requests/${id}/quote?quote_amount_cents=25000&diagnostic_fee_cents=8900&notes=Parts%20included`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      service_request_id: id,
      quote_amount_cents: 25000,
      diagnostic_fee_cents: 8900,
      notes: "Parts included",
      status: "pending",
      updated_at: expect.any(String),
    });
    const request = await t.owner.get(`/api/service-requests/${id}`);
    expect(request.body.quote).toEqual({
      quote_amount_cents: 25000,
      diagnostic_fee_cents: 8900,
      notes: "Parts included",
      status: "pending",
      updated_at: res.body.updated_at,
    });
  });

  it("posting again replaces the amounts and resets the status to pending", async () => {
    const { id } = await createRequest(t.owner);
    await t.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=100&diagnostic_fee_cents=50`);
    expect((await t.owner.put(`/api/service-requests/${id}/quote?status=approved`)).body.status).toBe("approved");
    const again = await t.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=0`);
    expect(again.body).toMatchObject({
      quote_amount_cents: 0,
      diagnostic_fee_cents: null,
      notes: null,
      status: "pending",
    });
  });

  it("422 for a missing, negative or malformed amount, a negative fee and long notes", async () => {
    const { id } = await createRequest(t.owner);
    const missing = await t.owner.post(`/api/service-requests/${id}/quote`);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      expect.objectContaining({ loc: ["query", "quote_amount_cents"], type: "missing" }),
    ]);
    const bad = await t.owner.post(
      `/api/service-requests/${id}/quote?quote_amount_cents=-1&diagnostic_fee_cents=-5&notes=${"n".repeat(1001)}`,
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type])).toEqual([
      [["query", "quote_amount_cents"], "greater_than_equal"],
      [["query", "diagnostic_fee_cents"], "greater_than_equal"],
      [["query", "notes"], "string_too_long"],
    ]);
    expect((await t.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=12.5`)).status).toBe(422);
    expect(
      (await t.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=1&notes=${"n".repeat(1000)}`)).status,
    ).toBe(200);
  });

  it("PUT sets approved, rejected or billed; anything else is 422", async () => {
    const { id } = await createRequest(t.owner);
    await t.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=500`);
    for (const status of ["approved", "rejected", "billed"]) {
      const res = await t.owner.put(`/api/service-requests/${id}/quote?status=${status}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ service_request_id: id, quote_amount_cents: 500, status });
    }
    for (const query of ["?status=pending", "?status=APPROVED", ""]) {
      const res = await t.owner.put(`/api/service-requests/${id}/quote${query}`);
      expect(res.status).toBe(422);
      expect(locs(res.body)).toEqual([["query", "status"]]);
    }
  });

  it("PUT on a request without a quote, and quotes of unknown requests, are 404", async () => {
    const { id } = await createRequest(t.owner);
    const res = await t.owner.put(`/api/service-requests/${id}/quote?status=approved`);
    expect(res.status).toBe(404);
    expect(typeof res.body.detail).toBe("string");
    expect((await t.owner.post(`/api/service-requests/${UNKNOWN}/quote?quote_amount_cents=1`)).status).toBe(404);
    expect((await t.owner.put(`/api/service-requests/${UNKNOWN}/quote?status=approved`)).status).toBe(404);
    const other = await newTenant(baseUrl, admin);
    expect((await other.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=1`)).status).toBe(404);
    expect((await t.owner.post(`/api/service-requests/nope/quote?quote_amount_cents=1`)).status).toBe(422);
  });

  it("GET /api/quotes/pending lists every pending quote, oldest first, with its request", async () => {
    const tenant = await newTenant(baseUrl, admin);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { id } = await createRequest(tenant.owner, { description: `Quoted ${i}` });
      await tenant.owner.post(`/api/service-requests/${id}/quote?quote_amount_cents=${(i + 1) * 100}`);
      ids.push(id);
    }
    await tenant.owner.put(`/api/service-requests/${ids[1]}/quote?status=approved`);
    const res = await tenant.owner.get("/api/quotes/pending");
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.items.map((q: { service_request_id: string }) => q.service_request_id)).toEqual([ids[0], ids[2]]);
    expect(res.body.items[0]).toMatchObject({
      quote_amount_cents: 100,
      status: "pending",
      service_request: { id: ids[0], description: "Quoted 0" },
    });
    // Posting again makes it the newest pending quote.
    await tenant.owner.post(`/api/service-requests/${ids[0]}/quote?quote_amount_cents=150`);
    const reordered = await tenant.owner.get("/api/quotes/pending");
    expect(reordered.body.items.map((q: { service_request_id: string }) => q.service_request_id)).toEqual([
      ids[2],
      ids[0],
    ]);
  });
});

describe("emergencies", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(baseUrl, admin);
  });

  it("marks a request with the type, priority (default 1) and notes", async () => {
    const { id } = await createRequest(t.owner);
    const res = await t.owner.post(`/api/service-requests/${id}/emergency?emergency_type=gas&notes=Smell%20of%20gas`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      is_emergency: true,
      emergency_type: "gas",
      emergency_priority: 1,
      emergency_notes: "Smell of gas",
      emergency_at: expect.any(String),
    });
  });

  it("422 for a missing or unknown type, a priority outside 1..10 and long notes", async () => {
    const { id } = await createRequest(t.owner);
    const missing = await t.owner.post(`/api/service-requests/${id}/emergency`);
    expect(missing.status).toBe(422);
    expect(locs(missing.body)).toEqual([["query", "emergency_type"]]);
    const bad = await t.owner.post(
      `/api/service-requests/${id}/emergency?emergency_type=fire&emergency_priority=0&notes=${"n".repeat(501)}`,
    );
    expect(bad.body.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type])).toEqual([
      [["query", "emergency_type"], "enum"],
      [["query", "emergency_priority"], "greater_than_equal"],
      [["query", "notes"], "string_too_long"],
    ]);
    expect(
      (await t.owner.post(`/api/service-requests/${id}/emergency?emergency_type=water&emergency_priority=11`)).status,
    ).toBe(422);
    expect(
      (await t.owner.post(`/api/service-requests/${id}/emergency?emergency_type=water&emergency_priority=10`)).status,
    ).toBe(200);
    expect((await t.owner.post(`/api/service-requests/${UNKNOWN}/emergency?emergency_type=water`)).status).toBe(404);
  });

  it("GET /api/emergencies/active lists open emergencies by priority, then time", async () => {
    const tenant = await newTenant(baseUrl, admin);
    const mark = async (priority: number) => {
      const { id } = await createRequest(tenant.owner);
      await tenant.owner.post(
        `/api/service-requests/${id}/emergency?emergency_type=electrical&emergency_priority=${priority}`,
      );
      return id;
    };
    const low = await mark(5);
    const first = await mark(2);
    const second = await mark(2);
    const done = await mark(1);
    await createRequest(tenant.owner);
    await tenant.owner.put(`/api/service-requests/${done}`, { status: "completed" });
    const res = await tenant.owner.get("/api/emergencies/active");
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.items.map((r: { id: string }) => r.id)).toEqual([first, second, low]);
  });
});

describe("GET /api/service-requests/stats", () => {
  it("counts open requests of the whole organization, not one page", async () => {
    const t = await newTenant(baseUrl, admin);
    expect((await t.owner.get("/api/service-requests/stats")).body).toEqual({
      open_total: 0,
      emergencies: 0,
      pending_quotes: 0,
      assigned: 0,
    });
    const provider = await t.owner.post("/api/service-providers", { name: "Stats Tech" });
    for (let i = 0; i < 12; i++) await createRequest(t.owner);
    const emergency = await createRequest(t.owner);
    await t.owner.post(`/api/service-requests/${emergency.id}/emergency?emergency_type=water`);
    const quoted = await createRequest(t.owner);
    await t.owner.post(`/api/service-requests/${quoted.id}/quote?quote_amount_cents=1`);
    await createRequest(t.owner, { provider_id: provider.body.id });
    // Closed requests count for nothing, whatever they carry.
    const closed = await createRequest(t.owner, { provider_id: provider.body.id });
    await t.owner.post(`/api/service-requests/${closed.id}/emergency?emergency_type=gas`);
    await t.owner.post(`/api/service-requests/${closed.id}/quote?quote_amount_cents=1`);
    await t.owner.put(`/api/service-requests/${closed.id}`, { status: "cancelled" });

    const stats = await t.owner.get("/api/service-requests/stats");
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({ open_total: 15, emergencies: 1, pending_quotes: 1, assigned: 1 });
    await t.owner.put(`/api/service-requests/${quoted.id}/quote?status=approved`);
    expect((await t.owner.get("/api/service-requests/stats")).body.pending_quotes).toBe(0);
  });
});
