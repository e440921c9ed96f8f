import { DateTime } from "luxon";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  ApiClient,
  eventually,
  expectStatus,
  locs,
  newTenant,
  testAdmin,
  type Tenant,
} from "@voiceops/platform/testing";

const baseUrl = inject("baseUrl");
const admin = testAdmin();
const UNKNOWN = "018f0000-0000-7000-8000-000000000000";

async function createRequest(client: ApiClient, body: Record<string, unknown> = {}) {
  return expectStatus(await client.post("/api/service-requests", { description: "Leaking tap", ...body }), 201);
}

describe("POST /api/service-requests", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(baseUrl, admin);
  });

  it("creates a request with the documented defaults", async () => {
    const res = await t.owner.post("/api/service-requests", {
      description: "  Water heater out  ",
      address: "1 Main St",
      category: "plumbing",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      contact_id: null,
      address: "1 Main St",
      category: "plumbing",
      description: "Water heater out",
      priority: "MEDIUM",
      status: "new",
      due_at: null,
      provider_id: null,
      is_emergency: false,
      emergency_type: null,
      emergency_priority: null,
      emergency_notes: null,
      emergency_at: null,
      quote: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("takes priority, status and due_at", async () => {
    const body = await createRequest(t.owner, {
      priority: "URGENT",
      status: "scheduled",
      due_at: "2030-01-02T15:04:05Z",
    });
    expect(body).toMatchObject({ priority: "URGENT", status: "scheduled", due_at: "2030-01-02T15:04:05.000Z" });
  });

  it("422 for every bad field at once", async () => {
    const res = await t.owner.post("/api/service-requests", {
      priority: "medium",
      status: "open",
      due_at: "tomorrow",
      contact_id: "nope",
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ["body", "contact_id"],
      ["body", "description"],
      ["body", "priority"],
      ["body", "status"],
      ["body", "due_at"],
    ]);
    expect(res.body.detail.find((d: { loc: string[] }) => d.loc[1] === "priority").msg).toBe(
      "Input should be 'LOW', 'MEDIUM', 'HIGH' or 'URGENT'",
    );
  });

  it("422 for a blank description", async () => {
    const res = await t.owner.post("/api/service-requests", { description: "   " });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([["body", "description"]]);
  });

  it("links a contact of the organization, and refuses another organization's", async () => {
    const contact = await t.owner.post("/api/contacts", { name: "Linked Customer" });
    const linked = await createRequest(t.owner, { contact_id: contact.body.id });
    expect(linked.contact_id).toBe(contact.body.id);

    const other = await newTenant(baseUrl, admin);
    const foreign = await other.owner.post("/api/contacts", { name: "Foreign" });
    const res = await t.owner.post("/api/service-requests", { description: "x", contact_id: foreign.body.id });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ["body", "contact_id"], type: "value_error" })]);
    const unknown = await t.owner.post("/api/service-requests", {
      description: "x",
      contact_id: UNKNOWN,
      provider_id: UNKNOWN,
    });
    expect(unknown.status).toBe(422);
    expect(locs(unknown.body)).toEqual([
      ["body", "contact_id"],
      ["body", "provider_id"],
    ]);
  });

  it("links a provider of the organization", async () => {
    const provider = await t.owner.post("/api/service-providers", { name: "Pat Plumber" });
    expect(provider.status).toBe(201);
    const linked = await createRequest(t.owner, { provider_id: provider.body.id });
    expect(linked.provider_id).toBe(provider.body.id);
    const other = await newTenant(baseUrl, admin);
    const res = await other.owner.post("/api/service-requests", { description: "x", provider_id: provider.body.id });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([["body", "provider_id"]]);
  });

  it("401 without a key", async () => {
    expect((await new ApiClient(baseUrl, undefined).post("/api/service-requests", { description: "x" })).status).toBe(
      401,
    );
  });
});

describe("GET /api/service-requests", () => {
  let t: Tenant;
  let contactId: string;
  beforeAll(async () => {
    t = await newTenant(baseUrl, admin);
    contactId = (await t.owner.post("/api/contacts", { name: "Filter Contact" })).body.id;
    for (let i = 0; i < 12; i++)
      await createRequest(t.owner, { description: `Job ${i}`, priority: i % 2 ? "HIGH" : "LOW" });
    await createRequest(t.owner, {
      description: "Furnace NOISE in basement",
      contact_id: contactId,
      status: "completed",
    });
  });

  it("pages with a default size of 10, newest first, and the true total", async () => {
    const first = await t.owner.get("/api/service-requests");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 13, page: 1, page_size: 10 });
    expect(first.body.items).toHaveLength(10);
    expect(first.body.items[0].description).toBe("Furnace NOISE in basement");
    const second = await t.owner.get("/api/service-requests?page=2");
    expect(second.body.items).toHaveLength(3);
    const past = await t.owner.get("/api/service-requests?page=9");
    expect(past.body).toMatchObject({ items: [], total: 13 });
  });

  it("filters by status, priority, contact and search", async () => {
    expect((await t.owner.get("/api/service-requests?status=completed")).body.total).toBe(1);
    expect((await t.owner.get("/api/service-requests?priority=HIGH&page_size=100")).body.total).toBe(6);
    const byContact = await t.owner.get(`/api/service-requests?contact_id=${contactId}`);
    expect(byContact.body.items.map((r: { contact_id: string }) => r.contact_id)).toEqual([contactId]);
    const search = await t.owner.get("/api/service-requests?search=furnace%20noise");
    expect(search.body.total).toBe(1);
  });

  it("422 for out-of-range or malformed parameters", async () => {
    const res = await t.owner.get("/api/service-requests?page=0&page_size=101&priority=high&contact_id=x&due_days=366");
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ["query", "page"],
      ["query", "page_size"],
      ["query", "priority"],
      ["query", "contact_id"],
      ["query", "due_days"],
    ]);
    expect((await t.owner.get("/api/service-requests?due_days=-1")).status).toBe(422);
    expect((await t.owner.get("/api/service-requests?page_size=abc")).body.detail[0].type).toBe("int_parsing");
  });

  it("never shows another organization's requests", async () => {
    const other = await newTenant(baseUrl, admin);
    expect((await other.owner.get("/api/service-requests")).body).toMatchObject({ items: [], total: 0 });
  });
});

describe("due_days in the organization's time zone", () => {
  it("counts local days: one minute after local midnight is tomorrow", async () => {
    const zone = "America/Chicago";
    const t = await newTenant(baseUrl, admin, { timezone: zone });
    const now = DateTime.now().setZone(zone);
    const startOfTomorrow = now.startOf("day").plus({ days: 1 });
    const due = async (description: string, at: DateTime | null, status = "new") =>
      (await createRequest(t.owner, { description, status, due_at: at ? at.toUTC().toISO() : undefined })).id as string;
    const late = await due("late", now.minus({ days: 2 }));
    const endOfToday = await due("end of today", startOfTomorrow.minus({ minutes: 1 }));
    const tomorrow = await due("just after midnight", startOfTomorrow.plus({ minutes: 1 }));
    await due("done", now.minus({ hours: 1 }), "completed");
    await due("cancelled", now.minus({ hours: 1 }), "cancelled");
    await due("no due date", null);
    // Skip the run that straddles local midnight: "today" would change under it.
    if (DateTime.now().setZone(zone).startOf("day").toMillis() !== now.startOf("day").toMillis()) return;

    const today = await t.owner.get("/api/service-requests?due_days=0&page_size=100");
    expect(today.status).toBe(200);
    expect(today.body.items.map((r: { id: string }) => r.id)).toEqual([late, endOfToday]);
    expect(today.body.total).toBe(2);
    const withTomorrow = await t.owner.get("/api/service-requests?due_days=1&page_size=100");
    expect(withTomorrow.body.items.map((r: { id: string }) => r.id)).toEqual([late, endOfToday, tomorrow]);
  });
});

describe("PUT and DELETE /api/service-requests/{id}", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(baseUrl, admin);
  });

  it("updates only the given fields and clears those sent as null", async () => {
    const created = await createRequest(t.owner, { address: "2 Elm St", category: "hvac", priority: "LOW" });
    const res = await t.owner.put(`/api/service-requests/${created.id}`, { status: "in_progress", address: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      status: "in_progress",
      address: null,
      category: "hvac",
      priority: "LOW",
      description: "Leaking tap",
    });
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.updated_at).getTime());
  });

  it("422 for a null description or a bad enum; nothing is changed", async () => {
    const created = await createRequest(t.owner);
    const res = await t.owner.put(`/api/service-requests/${created.id}`, { description: null, priority: "SOON" });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ["body", "description"],
      ["body", "priority"],
    ]);
    const other = await newTenant(baseUrl, admin);
    const foreign = await other.owner.post("/api/contacts", { name: "Foreign" });
    const link = await t.owner.put(`/api/service-requests/${created.id}`, {
      contact_id: foreign.body.id,
      category: "changed",
    });
    expect(link.status).toBe(422);
    expect(locs(link.body)).toEqual([["body", "contact_id"]]);
    const after = await t.owner.get(`/api/service-requests/${created.id}`);
    expect(after.body).toMatchObject({
      description: "Leaking tap",
      priority: "MEDIUM",
      category: null,
      contact_id: null,
    });
  });

  it("404 for unknown and other organizations' requests; 422 for malformed ids", async () => {
    const other = await newTenant(baseUrl, admin);
    const theirs = await createRequest(other.owner);
    for (const id of [UNKNOWN, theirs.id]) {
      expect((await t.owner.get(`/api/service-requests/${id}`)).status).toBe(404);
      expect((await t.owner.put(`/api/service-requests/${id}`, { status: "new" })).status).toBe(404);
      expect((await t.owner.delete(`/api/service-requests/${id}`)).status).toBe(404);
    }
    const malformed = await t.owner.put("/api/service-requests/abc", { status: "new" });
    expect(malformed.status).toBe(422);
    expect(locs(malformed.body)).toEqual([["path", "service_request_id"]]);
    expect((await other.owner.get(`/api/service-requests/${theirs.id}`)).status).toBe(200);
  });

  it("deletes with 204, then 404", async () => {
    const created = await createRequest(t.owner);
    const res = await t.owner.delete(`/api/service-requests/${created.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await t.owner.delete(`/api/service-requests/${created.id}`)).status).toBe(404);
  });
});

describe("links to deleted records", () => {
  it("clears contact_id when the CRM deletes the contact (event from the bus)", async () => {
    const t = await newTenant(baseUrl, admin);
    const contact = await t.owner.post("/api/contacts", { name: "Goes Away" });
    const request = await createRequest(t.owner, { contact_id: contact.body.id });
    const kept = await createRequest(t.owner);
    expect((await t.owner.delete(`/api/contacts/${contact.body.id}`)).status).toBe(204);
    const cleared = await eventually(async () => {
      const res = await t.owner.get(`/api/service-requests/${request.id}`);
      return res.body.contact_id === null ? res.body : undefined;
    }, 120_000);
    expect(cleared).toMatchObject({ id: request.id, description: "Leaking tap" });
    expect((await t.owner.get(`/api/service-requests?contact_id=${contact.body.id}`)).body.total).toBe(0);
    expect((await t.owner.get(`/api/service-requests/${kept.id}`)).status).toBe(200);
  });

  it("clears provider_id when field ops deletes the provider", async () => {
    const t = await newTenant(baseUrl, admin);
    const provider = await t.owner.post("/api/service-providers", { name: "Leaving Soon" });
    const request = await createRequest(t.owner, { provider_id: provider.body.id });
    expect((await t.owner.delete(`/api/service-providers/${provider.body.id}`)).status).toBe(204);
    await eventually(
      async () =>
        (await t.owner.get(`/api/service-requests/${request.id}`)).body.provider_id === null ? true : undefined,
      15_000,
    );
  });
});
