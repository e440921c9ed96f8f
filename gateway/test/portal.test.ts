import { beforeAll, describe, expect, inject, it } from "vitest";
import { PortalService } from "@voiceops/proto/voiceops/crm/v1/portal_service_pb";
import {
  expectStatus,
  grpc,
  newTenant,
  plainGrpcClient,
  testAdmin,
  UNKNOWN_ID,
  type Tenant,
} from "@voiceops/platform/testing";
import { contactWithQuote, mint, openTenant } from "./portal-helpers.js";

const baseUrl = inject("baseUrl");
const admin = testAdmin();
const DAY = 24 * 60 * 60 * 1000;

/** A portal request: no API key, the token in the path. */
async function portal(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${baseUrl}/portal/api/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

describe("portal tokens (management API)", () => {
  it("answers the token, its page and its expiry; only owners and admins may issue or revoke", async () => {
    const t = await newTenant(baseUrl, admin);
    const contactId = expectStatus(await t.owner.post("/api/contacts", { name: "Token Holder" }), 201).id;
    const body = expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token`), 201);
    expect(Object.keys(body).sort()).toEqual(["expires_at", "token", "url"]);
    expect(body.token).toMatch(/^pt_[\w-]{43}$/);
    expect(body.url).toBe(`/portal/${body.token}`);
    expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    expect((await t.member.post(`/api/contacts/${contactId}/portal-token`)).status).toBe(403);
    expect((await t.member.delete(`/api/contacts/${contactId}/portal-token`)).status).toBe(403);
  });

  it("is in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths["/api/contacts/{contact_id}/portal-token"] ?? {}).sort()).toEqual(["delete", "post"]);
  });
});

describe("the customer portal API", () => {
  let t: Tenant;
  let mine: { contactId: string; requestId: string };
  let theirs: { contactId: string; requestId: string };
  let token: string;
  let typeId: string;
  beforeAll(async () => {
    t = await openTenant(baseUrl, admin);
    mine = await contactWithQuote(t, "Portal Customer");
    theirs = await contactWithQuote(t, "Someone Else");
    typeId = expectStatus(
      await t.owner.post("/api/scheduling/types", { name: "Visit", duration_minutes: 60, min_notice_minutes: 0 }),
      201,
    ).id;
    token = await mint(t, mine.contactId);
  });

  it("shows the business, the contact's open requests with their quotes, and no one else's", async () => {
    const page = await portal("GET", token);
    expect(page.status).toBe(200);
    expect(page.body.business.name).toMatch(/^Portal Plumbing /);
    expect(page.body.contact_id).toBe(mine.contactId);
    expect(page.body.service_requests.map((r: { id: string }) => r.id)).toEqual([mine.requestId]);
    expect(page.body.service_requests[0].quote).toMatchObject({ quote_amount_cents: 12500, status: "pending" });
    expect(page.body.appointments).toEqual([]);
    expect(page.body.appointment_types.map((type: { id: string }) => type.id)).toEqual([typeId]);
  });

  it("approves a pending quote as PUT .../quote does; another contact's request is a 404", async () => {
    const approved = await portal("POST", `${token}/service-requests/${mine.requestId}/quote`, { status: "approved" });
    expect(approved.status).toBe(200);
    expect(approved.body.service_request.quote.status).toBe("approved");
    expect((await t.owner.get(`/api/service-requests/${mine.requestId}`)).body.quote.status).toBe("approved");

    const foreign = await portal("POST", `${token}/service-requests/${theirs.requestId}/quote`, { status: "rejected" });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: expect.any(String) });
    expect((await t.owner.get(`/api/service-requests/${theirs.requestId}`)).body.quote.status).toBe("pending");
    expect((await portal("POST", `${token}/service-requests/${UNKNOWN_ID}/quote`, { status: "rejected" })).status).toBe(
      404,
    );
  });

  it("refuses a decision other than approved or rejected with a 422 on the field", async () => {
    const res = await portal("POST", `${token}/service-requests/${mine.requestId}/quote`, { status: "billed" });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["body", "status"]]);
  });

  it("refuses a malformed availability question with a 422 on the query", async () => {
    const res = await portal("GET", `${token}/availability?appointment_type_id=${typeId}&date_from=someday`);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["query", "date_from"]]);
    expect((await portal("GET", `${token}/availability`)).status).toBe(422);
  });

  it("offers the availability, books a slot for the contact and reschedules it", async () => {
    const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
    const slots = await portal(
      "GET",
      `${token}/availability?appointment_type_id=${typeId}&date_from=${tomorrow}&date_to=${tomorrow}`,
    );
    expect(slots.status).toBe(200);
    expect(slots.body.slots.length).toBe(24);
    const [first, second] = slots.body.slots as { start: string }[];

    const booked = await portal("POST", `${token}/appointments`, { appointment_type_id: typeId, start: first?.start });
    expect(booked.status).toBe(201);
    expect(booked.body.appointment).toMatchObject({ contact_id: mine.contactId, status: "scheduled" });
    const listed = (await t.owner.get(`/api/scheduling/appointments?contact_id=${mine.contactId}`)).body.items;
    expect(listed.map((a: { id: string }) => a.id)).toEqual([booked.body.appointment.id]);
    expect((await portal("GET", token)).body.appointments.map((a: { id: string }) => a.id)).toEqual([
      booked.body.appointment.id,
    ]);

    const moved = await portal("POST", `${token}/appointments/${booked.body.appointment.id}/reschedule`, {
      start: second?.start,
    });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.appointment.start_at)).toBe(Date.parse(second?.start ?? ""));
  });

  it("answers 404 for another contact's appointment", async () => {
    const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
    const start = `${tomorrow}T20:00:00Z`;
    const theirsBooked = expectStatus(
      await t.owner.post("/api/scheduling/book", { appointment_type_id: typeId, start, contact_id: theirs.contactId }),
      201,
    );
    const res = await portal("POST", `${token}/appointments/${theirsBooked.id}/reschedule`, {
      start: `${tomorrow}T21:00:00Z`,
    });
    expect(res.status).toBe(404);
  });

  it("answers 404 with the API's error shape for an unknown or revoked token", async () => {
    const unknown = await portal("GET", `pt_${"x".repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: expect.any(String) });

    const other = await contactWithQuote(t, "Revoked Customer");
    const revoked = await mint(t, other.contactId);
    expect((await portal("GET", revoked)).status).toBe(200);
    expect((await t.owner.delete(`/api/contacts/${other.contactId}/portal-token`)).status).toBe(204);
    const after = await portal("GET", revoked);
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ detail: expect.any(String) });
    expect(
      (await portal("POST", `${revoked}/service-requests/${other.requestId}/quote`, { status: "approved" })).status,
    ).toBe(404);
  });

  it("gives a token nothing of another organization", async () => {
    const other = await openTenant(baseUrl, admin);
    const elsewhere = await contactWithQuote(other, "Other Org Customer");
    expect(
      (await portal("POST", `${token}/service-requests/${elsewhere.requestId}/quote`, { status: "approved" })).status,
    ).toBe(404);
    expect((await other.owner.post(`/api/contacts/${mine.contactId}/portal-token`)).status).toBe(404);
    expect((await other.owner.get(`/api/service-requests/${elsewhere.requestId}`)).body.quote.status).toBe("pending");
  });

  it("limits each token to 60 requests a minute", async () => {
    const limited = await mint(t, (await contactWithQuote(t, "Busy Customer")).contactId);
    for (let i = 0; i < 60; i++) expect((await portal("GET", limited)).status).toBe(200);
    const refused = await portal("GET", limited);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: expect.any(String) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("GET /portal/<token>", () => {
  it("answers the built page for an active token: never stored, its assets cached for a year, no source maps", async () => {
    const t = await newTenant(baseUrl, admin);
    const token = await mint(t, (await contactWithQuote(t, "Page Holder")).contactId);
    const page = await fetch(`${baseUrl}/portal/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    const html = await page.text();
    // The page is the same for every token: the contact's data comes from the JSON routes.
    expect(html).not.toContain("Page Holder");
    const script = html.match(/src="(\/app\/assets\/portal-[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toMatch(/max-age=31536000, immutable/);
    expect(await asset.text()).not.toMatch(/sourceMappingURL/);
  });

  it("answers a plain 404 page for an unknown, malformed or revoked token", async () => {
    const t = await newTenant(baseUrl, admin);
    const { contactId } = await contactWithQuote(t, "Withdrawn Holder");
    const token = await mint(t, contactId);
    expect((await t.owner.delete(`/api/contacts/${contactId}/portal-token`)).status).toBe(204);
    for (const path of [token, `pt_${"x".repeat(43)}`, "pt_anything", "%00"]) {
      const res = await fetch(`${baseUrl}/portal/${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const html = await res.text();
      expect(html).toContain("This link is not valid");
      expect(html).not.toMatch(/<script|Withdrawn Holder|Leaking tap/);
    }
  });
});

describe("the CRM's PortalService over gRPC", () => {
  it("resolves a token with the internal token and no organization, and refuses a call without the internal token", async () => {
    const t = await newTenant(baseUrl, admin);
    const contactId = expectStatus(await t.owner.post("/api/contacts", { name: "Resolved" }), 201).id;
    const token = await mint(t, contactId);
    const client = plainGrpcClient(inject("serviceUrls").crm ?? "");
    try {
      const { resolvePortalToken } = PortalService.method;
      expect(
        await client.call(resolvePortalToken, { token }, { "x-internal-token": inject("internalToken") }),
      ).toMatchObject({ orgId: t.orgId, contactId });
      await expect(client.call(resolvePortalToken, { token }, { "x-internal-token": "wrong" })).rejects.toMatchObject({
        code: grpc.status.UNAUTHENTICATED,
      });
      await expect(
        client.call(resolvePortalToken, { token: `${token}x` }, { "x-internal-token": inject("internalToken") }),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      client.close();
    }
  });
});
