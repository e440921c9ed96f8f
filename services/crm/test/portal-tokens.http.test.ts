import { beforeAll, describe, expect, it } from "vitest";
import { expectDetail, expectStatus, locs, tenantFactory, UNKNOWN_ID, type Tenant } from "@voiceops/platform/testing";

const tenant = tenantFactory();
const DAY = 24 * 60 * 60 * 1000;

describe("POST and DELETE /api/contacts/{id}/portal-token", () => {
  let t: Tenant;
  let contactId: string;
  beforeAll(async () => {
    t = await tenant();
    contactId = expectStatus(await t.owner.post("/api/contacts", { name: "Portal Customer" }), 201).id;
  });

  it("issues a token shown once, expiring in 30 days by default", async () => {
    const body = expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token`), 201);
    expect(Object.keys(body).sort()).toEqual(["expires_at", "token", "url"]);
    expect(body.url).toBe(`/portal/${body.token}`);
    expect(body.token).toMatch(/^pt_[\w-]{43}$/);
    expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
  });

  it("takes expires_in_days, 1..365", async () => {
    const body = expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token?expires_in_days=2`), 201);
    expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + 2 * DAY))).toBeLessThan(60_000);
    expect(
      locs(expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token?expires_in_days=0`), 422)),
    ).toEqual([["query", "expires_in_days"]]);
    expect(
      locs(expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token?expires_in_days=366`), 422)),
    ).toEqual([["query", "expires_in_days"]]);
  });

  it("gives a new token each time", async () => {
    const a = expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token`), 201);
    const b = expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token`), 201);
    expect(a.token).not.toBe(b.token);
  });

  it("revokes with 204, also when there is nothing to revoke", async () => {
    expect((await t.owner.delete(`/api/contacts/${contactId}/portal-token`)).status).toBe(204);
    expect((await t.owner.delete(`/api/contacts/${contactId}/portal-token`)).status).toBe(204);
  });

  it("403 for the member role", async () => {
    expectDetail(await t.member.post(`/api/contacts/${contactId}/portal-token`), 403);
    expectDetail(await t.member.delete(`/api/contacts/${contactId}/portal-token`), 403);
  });

  it("404 for an unknown contact or another organization's, 422 for a malformed id", async () => {
    expectDetail(await t.owner.post(`/api/contacts/${UNKNOWN_ID}/portal-token`), 404);
    expectDetail(await t.owner.delete(`/api/contacts/${UNKNOWN_ID}/portal-token`), 404);
    const other = await tenant();
    expectDetail(await other.owner.post(`/api/contacts/${contactId}/portal-token`), 404);
    expectDetail(await other.owner.delete(`/api/contacts/${contactId}/portal-token`), 404);
    expect(locs(expectStatus(await t.owner.post("/api/contacts/not-a-uuid/portal-token"), 422))).toEqual([
      ["path", "contact_id"],
    ]);
  });
});
