import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectStatus,
  RFC3339_UTC,
  tenantFactory,
  type ApiClient,
  type Tenant,
} from "@voiceops/platform/testing";

const tenant = tenantFactory();
const internalKey = inject("internalApiKey");

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

async function activity(client: ApiClient, body: Record<string, unknown>) {
  const res = await client.request("POST", "/api/activities", { body, headers: { "x-internal-key": internalKey } });
  return expectStatus(res, 201);
}

const idsOf = (items: { id: string }[]) => items.map((i) => i.id);

describe("GET /api/messages", () => {
  let t: Tenant;
  const ids: Record<string, string> = {};
  let contactId: string;
  beforeAll(async () => {
    t = await tenant();
    contactId = expectStatus(
      await t.owner.post("/api/contacts", { name: "Texter", phone_number: "+15550301000" }),
      201,
    ).id;
    ids.in1 = (
      await activity(t.owner, {
        activity_type: "SMS_RECEIVED",
        metadata: { from_number: "(555) 030-2000", body: "Is anyone there?" },
        occurred_at: hoursAgo(5),
      })
    ).id;
    ids.out1 = (
      await activity(t.owner, {
        activity_type: "SMS_SENT",
        metadata: { to_number: "+15550302000" },
        description: "Yes, how can we help?",
        occurred_at: hoursAgo(4),
      })
    ).id;
    ids.byContact = (
      await activity(t.owner, {
        activity_type: "SMS_SENT",
        contact_id: contactId,
        metadata: { body: "Your appointment is confirmed" },
        occurred_at: hoursAgo(3),
      })
    ).id;
    ids.explicit = (
      await activity(t.owner, {
        activity_type: "SMS_RECEIVED",
        metadata: { phone_number: "555-030-3000", from_number: "+15550309999", body: "stop" },
        occurred_at: hoursAgo(30),
      })
    ).id;
    ids.wa = (
      await activity(t.owner, {
        activity_type: "WHATSAPP_RECEIVED",
        metadata: { from_number: "+15550304000", body: "hola" },
        occurred_at: hoursAgo(2),
      })
    ).id;
    ids.web1 = (
      await activity(t.owner, {
        activity_type: "WEB_CHAT",
        metadata: { visitor_message: "Do you fix boilers?", reply: "Yes we do!", visitor_id: "visitor-9" },
        occurred_at: hoursAgo(6),
      })
    ).id;
    ids.web2 = (
      await activity(t.owner, {
        activity_type: "WEB_CHAT",
        metadata: { visitor_message: "Price?", reply: "From $99", visitor_id: "visitor-7" },
        occurred_at: hoursAgo(1),
      })
    ).id;
    // Not messages.
    await activity(t.owner, {
      activity_type: "CALL_ENDED",
      session_id: "m-call",
      metadata: { from_number: "+15550302000" },
    });
    await activity(t.owner, { activity_type: "EMAIL_SENT" });
  });

  it("lists SMS by default, newest first, with the customer's number and the body", async () => {
    const body = expectStatus(await t.owner.get("/api/messages"), 200);
    expect(body).toMatchObject({ total: 4, page: 1, page_size: 50 });
    expect(idsOf(body.items)).toEqual([ids.byContact, ids.out1, ids.in1, ids.explicit]);
    expect(body.items[0]).toEqual({
      id: ids.byContact,
      activity_id: ids.byContact,
      direction: "outbound",
      channel: "sms",
      phone: "+15550301000",
      body: "Your appointment is confirmed",
      contact_id: contactId,
      occurred_at: expect.stringMatching(RFC3339_UTC),
    });
    expect(body.items[1]).toMatchObject({
      direction: "outbound",
      phone: "+15550302000",
      body: "Yes, how can we help?",
      contact_id: null,
    });
    expect(body.items[2]).toMatchObject({ direction: "inbound", phone: "+15550302000", body: "Is anyone there?" });
    expect(body.items[3]).toMatchObject({ direction: "inbound", phone: "+15550303000", body: "stop" });
  });

  it("filters by direction, phone (formatting ignored) and hours_back", async () => {
    const inbound = expectStatus(await t.owner.get("/api/messages?direction=inbound"), 200);
    expect(idsOf(inbound.items)).toEqual([ids.in1, ids.explicit]);
    expect(inbound.total).toBe(2);
    for (const phone of ["555-030-2000", "(555) 030-2000", "+15550302000", "5550302000"]) {
      const res = expectStatus(await t.owner.get(`/api/messages?phone=${encodeURIComponent(phone)}`), 200);
      expect(idsOf(res.items)).toEqual([ids.out1, ids.in1]);
      expect(res.total).toBe(2);
    }
    expect(
      idsOf(expectStatus(await t.owner.get("/api/messages?phone=5550302000&direction=outbound"), 200).items),
    ).toEqual([ids.out1]);
    const recent = expectStatus(await t.owner.get("/api/messages?hours_back=24"), 200);
    expect(idsOf(recent.items)).toEqual([ids.byContact, ids.out1, ids.in1]);
    expect(recent.total).toBe(3);
  });

  it("lists WhatsApp on its own channel", async () => {
    const body = expectStatus(await t.owner.get("/api/messages?channel=whatsapp"), 200);
    expect(body.items).toEqual([
      expect.objectContaining({
        id: ids.wa,
        channel: "whatsapp",
        direction: "inbound",
        phone: "+15550304000",
        body: "hola",
      }),
    ]);
    expect(body.total).toBe(1);
  });

  it("splits each web chat into the reply then the visitor's message", async () => {
    const body = expectStatus(await t.owner.get("/api/messages?channel=web"), 200);
    expect(body.total).toBe(4);
    expect(body.items).toEqual([
      expect.objectContaining({
        id: `${ids.web2}:out`,
        activity_id: ids.web2,
        direction: "outbound",
        channel: "web",
        phone: "visitor-7",
        body: "From $99",
      }),
      expect.objectContaining({
        id: `${ids.web2}:in`,
        activity_id: ids.web2,
        direction: "inbound",
        channel: "web",
        phone: "visitor-7",
        body: "Price?",
      }),
      expect.objectContaining({ id: `${ids.web1}:out`, direction: "outbound", body: "Yes we do!" }),
      expect.objectContaining({ id: `${ids.web1}:in`, direction: "inbound", body: "Do you fix boilers?" }),
    ]);
  });

  it("pages over items, across the halves of an exchange", async () => {
    const expected = [`${ids.web2}:out`, `${ids.web2}:in`, `${ids.web1}:out`, `${ids.web1}:in`];
    for (const size of [1, 3]) {
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(4 / size) + 1; page++) {
        const body = expectStatus(await t.owner.get(`/api/messages?channel=web&page=${page}&page_size=${size}`), 200);
        expect(body).toMatchObject({ total: 4, page, page_size: size });
        seen.push(...idsOf(body.items));
      }
      expect(seen).toEqual(expected);
    }
    const inbound = expectStatus(await t.owner.get("/api/messages?channel=web&direction=inbound"), 200);
    expect(idsOf(inbound.items)).toEqual([`${ids.web2}:in`, `${ids.web1}:in`]);
    expect(inbound.total).toBe(2);
    const outbound = expectStatus(
      await t.owner.get("/api/messages?channel=web&direction=outbound&page_size=1&page=2"),
      200,
    );
    expect(idsOf(outbound.items)).toEqual([`${ids.web1}:out`]);
    expect(outbound.total).toBe(2);
    expect(idsOf(expectStatus(await t.owner.get("/api/messages?channel=web&phone=visitor-9"), 200).items)).toEqual([
      `${ids.web1}:out`,
      `${ids.web1}:in`,
    ]);
    expect(expectStatus(await t.owner.get("/api/messages?channel=web&hours_back=3"), 200).total).toBe(2);
  });

  it("422 for bad channels, directions and ranges", async () => {
    expect422(await t.owner.get("/api/messages?channel=phone&direction=up&page_size=101&hours_back=0&page=0"), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
      { loc: ["query", "hours_back"], type: "greater_than_equal" },
      { loc: ["query", "direction"], type: "enum" },
      { loc: ["query", "channel"], type: "enum" },
    ]);
    expect422(await t.owner.get(`/api/messages?phone=${"9".repeat(201)}`), [
      { loc: ["query", "phone"], type: "string_too_long" },
    ]);
  });

  it("another organization sees none; 401 without a key", async () => {
    const other = await tenant();
    for (const channel of ["sms", "web", "whatsapp"]) {
      expect(expectStatus(await other.owner.get(`/api/messages?channel=${channel}`), 200)).toMatchObject({
        items: [],
        total: 0,
      });
    }
    await expect401(anonymousClient(), "GET", "/api/messages");
  });
});
