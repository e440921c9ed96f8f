import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expect422, expectStatus, tenantFactory, UNKNOWN_ID, type Tenant } from "@voiceops/platform/testing";
import { Receiver } from "./receiver.js";

// Webhook endpoints through the gateway: create (secret once), read, list with filters and
// pages, change, delete, rotate; roles and bad input.

const tenant = tenantFactory();
const ENDPOINT_KEYS = [
  "created_at",
  "description",
  "disabled_reason",
  "enabled",
  "event_types",
  "id",
  "updated_at",
  "url",
];

describe("webhook endpoints", () => {
  let t: Tenant;
  const receiver = new Receiver();

  beforeAll(async () => {
    t = await tenant();
    await receiver.start();
  });
  afterAll(() => receiver.stop());

  it("creates an endpoint with a whsec_ secret shown only in the answer", async () => {
    const created = expectStatus(
      await t.owner.post("/api/webhooks", { url: receiver.url(), description: "CRM sync" }),
      201,
    );
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(created).toMatchObject({
      url: receiver.url(),
      description: "CRM sync",
      event_types: ["*"],
      enabled: true,
      disabled_reason: null,
    });
    const read = expectStatus(await t.owner.get(`/api/webhooks/${created.id}`), 200);
    expect(Object.keys(read).sort()).toEqual(ENDPOINT_KEYS);
    const listed = expectStatus(await t.owner.get("/api/webhooks"), 200);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
  });

  it("lists with filters and pages, newest first", async () => {
    const own = await tenant();
    const a = expectStatus(
      await own.owner.post("/api/webhooks", { url: receiver.url("/a"), event_types: ["contact.created"] }),
      201,
    );
    const b = expectStatus(
      await own.owner.post("/api/webhooks", { url: receiver.url("/b"), event_types: ["lead.created", "lead.updated"] }),
      201,
    );
    const c = expectStatus(await own.owner.post("/api/webhooks", { url: receiver.url("/c") }), 201);
    expectStatus(await own.owner.request("PATCH", `/api/webhooks/${c.id}`, { body: { enabled: false } }), 200);
    const all = expectStatus(await own.owner.get("/api/webhooks"), 200);
    expect(all).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(all.items.map((item: { id: string }) => item.id)).toEqual([c.id, b.id, a.id]);
    const page2 = expectStatus(await own.owner.get("/api/webhooks?page=2&page_size=2"), 200);
    expect(page2.items.map((item: { id: string }) => item.id)).toEqual([a.id]);
    const enabled = expectStatus(await own.owner.get("/api/webhooks?enabled=true"), 200);
    expect(enabled.items.map((item: { id: string }) => item.id)).toEqual([b.id, a.id]);
    // "*" subscribes to every type.
    const leads = expectStatus(await own.owner.get("/api/webhooks?event_type=lead.created"), 200);
    expect(leads.items.map((item: { id: string }) => item.id)).toEqual([c.id, b.id]);
  });

  it("changes fields; disabling by hand says manual, enabling clears it", async () => {
    const created = expectStatus(await t.owner.post("/api/webhooks", { url: receiver.url() }), 201);
    const disabled = expectStatus(
      await t.owner.request("PATCH", `/api/webhooks/${created.id}`, {
        body: { enabled: false, description: "paused" },
      }),
      200,
    );
    expect(disabled).toMatchObject({
      enabled: false,
      disabled_reason: "manual",
      description: "paused",
      url: receiver.url(),
    });
    const enabled = expectStatus(
      await t.owner.request("PATCH", `/api/webhooks/${created.id}`, {
        body: { enabled: true, event_types: ["lead.created"] },
      }),
      200,
    );
    expect(enabled).toMatchObject({
      enabled: true,
      disabled_reason: null,
      event_types: ["lead.created"],
      description: "paused",
    });
  });

  it("deletes an endpoint", async () => {
    const created = expectStatus(await t.owner.post("/api/webhooks", { url: receiver.url() }), 201);
    expect((await t.owner.delete(`/api/webhooks/${created.id}`)).status).toBe(204);
    expect((await t.owner.get(`/api/webhooks/${created.id}`)).status).toBe(404);
    expect((await t.owner.delete(`/api/webhooks/${created.id}`)).status).toBe(404);
  });

  it("rotates the secret", async () => {
    const created = expectStatus(await t.owner.post("/api/webhooks", { url: receiver.url() }), 201);
    const rotated = expectStatus(await t.owner.post(`/api/webhooks/${created.id}/rotate-secret`, {}), 200);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect((await t.owner.post(`/api/webhooks/${UNKNOWN_ID}/rotate-secret`, {})).status).toBe(404);
  });

  it("is for owners and admins only", async () => {
    expect((await t.member.get("/api/webhooks")).status).toBe(403);
    expect((await t.member.post("/api/webhooks", { url: receiver.url() })).status).toBe(403);
  });

  it("keeps other organizations' endpoints invisible", async () => {
    const created = expectStatus(await t.owner.post("/api/webhooks", { url: receiver.url() }), 201);
    const other = await tenant();
    expect((await other.owner.get(`/api/webhooks/${created.id}`)).status).toBe(404);
  });

  it("refuses bad input with 422 and writes nothing", async () => {
    const own = await tenant();
    expect422(await own.owner.post("/api/webhooks", {}), [{ loc: ["body", "url"] }]);
    expect422(await own.owner.post("/api/webhooks", { url: "ftp://example.com/x" }), [{ loc: ["body", "url"] }]);
    expect422(await own.owner.post("/api/webhooks", { url: "not a url" }), [{ loc: ["body", "url"] }]);
    expect422(await own.owner.post("/api/webhooks", { url: "http://169.254.169.254/latest" }), [
      { loc: ["body", "url"] },
    ]);
    expect422(await own.owner.post("/api/webhooks", { url: "http://[fe80::1]/x" }), [{ loc: ["body", "url"] }]);
    expect422(await own.owner.post("/api/webhooks", { url: "http://0.0.0.0/x" }), [{ loc: ["body", "url"] }]);
    expect422(await own.owner.post("/api/webhooks", { url: `https://example.com/${"x".repeat(2001)}` }), [
      { loc: ["body", "url"] },
    ]);
    expect422(
      await own.owner.post("/api/webhooks", { url: receiver.url(), event_types: ["contact.created", "nope.nope"] }),
      [{ loc: ["body", "event_types", 1] }],
    );
    expect422(await own.owner.get("/api/webhooks/not-a-uuid"), [{ loc: ["path", "endpoint_id"] }]);
    expect422(await own.owner.get("/api/webhooks?page_size=101"), [{ loc: ["query", "page_size"] }]);
    expect(expectStatus(await own.owner.get("/api/webhooks"), 200).total).toBe(0);
  });

  it("names every event type in the catalogue", async () => {
    const catalogue = expectStatus(await t.owner.get("/api/webhooks/event-types"), 200);
    const types = catalogue.items.map((item: { type: string }) => item.type);
    for (const type of [
      "contact.created",
      "lead.deleted",
      "appointment.booked",
      "call.recording_ready",
      "knowledge_source.ready",
      "quote.updated",
      "emergency.flagged",
      "dnc_entry.created",
    ]) {
      expect(types).toContain(type);
    }
    for (const item of catalogue.items) expect(item.description).not.toBe("");
  });
});
