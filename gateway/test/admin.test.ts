import { describe, expect, inject, it } from "vitest";
import { DEFAULT_BUSINESS_HOURS } from "@voiceops/platform";
import { locs, testAdmin } from "@voiceops/platform/testing";
import { gatewayErrors, refusalAnswer } from "../src/errors/index.js";

const admin = testAdmin();

describe("admin API", () => {
  it("401 without or with a wrong bearer token", async () => {
    const none = await fetch(`${inject("adminUrl")}/admin/organizations/00000000-0000-7000-8000-000000000000`);
    expect(none.status).toBe(401);
    const wrong = await admin.request(
      "GET",
      "/admin/organizations/00000000-0000-7000-8000-000000000000",
      undefined,
      "wrong",
    );
    expect({ status: wrong.status, body: wrong.body }).toEqual(refusalAnswer(gatewayErrors.ADMIN_TOKEN_REFUSED()));
  });

  it("creates an organization with defaults, reads and patches it", async () => {
    const created = await admin.request("POST", "/admin/organizations", { name: "Defaults Plumbing" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: "Defaults Plumbing",
      timezone: "UTC",
      default_country: "US",
      business_hours: DEFAULT_BUSINESS_HOURS,
      created_at: expect.any(String),
    });
    const read = await admin.request("GET", `/admin/organizations/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    const patched = await admin.request("PATCH", `/admin/organizations/${created.body.id}`, {
      timezone: "Europe/Berlin",
      default_country: "de",
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ timezone: "Europe/Berlin", default_country: "DE", name: "Defaults Plumbing" });
  });

  it("422 for a bad timezone, country or missing name, all reported", async () => {
    const res = await admin.request("POST", "/admin/organizations", {
      timezone: "Mars/Olympus",
      default_country: "XX",
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      ["body", "name"],
      ["body", "timezone"],
      ["body", "default_country"],
    ]);
  });

  it("issues keys shown once, lists them without the secret, revokes them", async () => {
    const org = await admin.createOrganization();
    const created = await admin.request("POST", `/admin/organizations/${org.id}/api-keys`, {
      name: "voice agent",
      role: "admin",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^vo_[\w-]{40,}$/),
      prefix: created.body.key.slice(0, 11),
      role: "admin",
      name: "voice agent",
      expires_at: null,
      created_at: expect.any(String),
    });
    const listed = await admin.request("GET", `/admin/organizations/${org.id}/api-keys`);
    expect(listed.body.total).toBe(1);
    expect(listed.body.items[0]).not.toHaveProperty("key");
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect(listed.body.items[0]).toMatchObject({
      id: created.body.id,
      prefix: created.body.prefix,
      role: "admin",
      revoked_at: null,
    });
    expect((await admin.request("DELETE", `/admin/api-keys/${created.body.id}`)).status).toBe(204);
  });

  it("defaults the role to member and rejects unknown roles", async () => {
    const org = await admin.createOrganization();
    const key = await admin.request("POST", `/admin/organizations/${org.id}/api-keys`, {});
    expect(key.body.role).toBe("member");
    const bad = await admin.request("POST", `/admin/organizations/${org.id}/api-keys`, { role: "root" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "role"]);
  });

  it("404 for unknown organizations and keys, 422 for malformed ids", async () => {
    const unknown = "018f0000-0000-7000-8000-000000000000";
    const unknownOrg = await admin.request("GET", `/admin/organizations/${unknown}`);
    expect({ status: unknownOrg.status, body: unknownOrg.body }).toEqual(
      refusalAnswer(gatewayErrors.ORGANIZATION_NOT_FOUND()),
    );
    expect((await admin.request("POST", `/admin/organizations/${unknown}/api-keys`, {})).status).toBe(404);
    expect((await admin.request("DELETE", `/admin/api-keys/${unknown}`)).status).toBe(404);
    const malformed = await admin.request("GET", "/admin/organizations/nope");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["path", "id"]);
  });
});
