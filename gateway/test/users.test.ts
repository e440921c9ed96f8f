import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, ApiClient, newTenant, testEnv, type Tenant } from "@voiceops/platform/testing";
import { gatewayErrors, refusalAnswer } from "../src/errors/index.js";
import { startSystem, type RunningSystem } from "../src/system.js";
import { BrowserSession, http, newAddress, uniqueEmail } from "./users-helpers.js";

// Dashboard users over real HTTP: set-up links, sign-in, the session cookie as a second way to
// use the same API, CSRF, sign-in limits, and the account routes' roles and scoping. The system
// trusts X-Forwarded-For from loopback, so each test signs in from addresses of its own and the
// failed sign-ins of one never lock out another.

const PASSWORD = "correct horse battery";

let system: RunningSystem;
let admin: AdminClient;

const answered = refusalAnswer;
const answerOf = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.body });

beforeAll(async () => {
  system = await startSystem({
    env: testEnv({ RATE_LIMIT_PER_MINUTE: "1000000", TRUST_PROXY: "loopback", PUBLIC_URL: "https://dash.example.com" }),
    inMemory: true,
  });
  admin = new AdminClient(system.adminUrl, system.adminToken);
});
afterAll(async () => {
  await system?.stop();
});

/** A user of the tenant with a password, through the admin API and the set-up link. */
async function userOf(
  tenant: Tenant,
  role: "owner" | "admin" | "member",
  email = uniqueEmail(role),
): Promise<{ email: string; session: BrowserSession; id: string }> {
  const created = await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, { email, role });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const token = new URL(created.body.setup_url).hash.replace(/^#token=/, "");
  const address = newAddress();
  const setup = await http(system.url, "POST", "/api/auth/setup", {
    body: { token: decodeURIComponent(token), password: PASSWORD },
    headers: { "x-forwarded-for": address },
  });
  expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  return { email, id: created.body.id, session: BrowserSession.from(system.url, setup, address) };
}

describe("users and set-up links", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant(system.url, admin);
  });

  it("the admin API creates a user with a one-time set-up link under PUBLIC_URL; the link sets a password once", async () => {
    const email = uniqueEmail("setup");
    const created = await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, {
      email,
      name: "Ann Owner",
      role: "owner",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email,
      name: "Ann Owner",
      role: "owner",
      last_sign_in_at: null,
      setup_url: expect.stringMatching(/^https:\/\/dash\.example\.com\/app\/setup#token=/),
    });
    const token = decodeURIComponent(new URL(created.body.setup_url).hash.slice("#token=".length));
    const short = await http(system.url, "POST", "/api/auth/setup", { body: { token, password: "too short" } });
    expect(short.status).toBe(422);
    expect(short.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["body", "password"]]);
    const done = await http(system.url, "POST", "/api/auth/setup", { body: { token, password: PASSWORD } });
    expect(done.status).toBe(200);
    const cookie = done.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^vo_session=vs_/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    expect((await http(system.url, "POST", "/api/auth/setup", { body: { token, password: PASSWORD } })).status).toBe(
      404,
    );
    const listed = await admin.request("GET", `/admin/organizations/${tenant.orgId}/users`);
    expect(listed.body.items.map((u: { email: string }) => u.email)).toContain(email);
    expect(JSON.stringify(listed.body)).not.toMatch(/password|scrypt/);
  });

  it("an email is one user: 409 the second time; a bad email or role is 422", async () => {
    const email = uniqueEmail("twice");
    expect(
      (await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, { email, role: "member" })).status,
    ).toBe(201);
    const again = await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, {
      email: email.toUpperCase(),
      role: "member",
    });
    expect(answerOf(again)).toEqual(answered(gatewayErrors.EMAIL_TAKEN()));
    const bad = await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, {
      email: "not-an-email",
      role: "boss",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ["body", "email"],
      ["body", "role"],
    ]);
  });
});

describe("sign-in and sessions", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant(system.url, admin);
  });

  it("a session uses the same REST API as a key, scoped to its organization", async () => {
    const { session, email } = await userOf(tenant, "owner");
    const me = await session.request("GET", "/api/me");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { email, role: "owner" },
      organization: { id: tenant.orgId },
      role: "owner",
      csrf_token: session.csrfToken,
    });
    const created = await session.request("POST", "/api/contacts", { body: { name: "Session Made" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await tenant.owner.get(`/api/contacts/${created.body.id}`)).status).toBe(200);
    // Another organization's ids are not found.
    const other = await newTenant(system.url, admin);
    const theirs = await other.owner.post("/api/contacts", { name: "Theirs" });
    expect((await session.request("GET", `/api/contacts/${theirs.body.id}`)).status).toBe(404);
    const theirKey = await admin.createKey(other.orgId, { role: "member" });
    expect(answerOf(await session.request("DELETE", `/api/api-keys/${theirKey.id}`))).toEqual(
      answered(gatewayErrors.API_KEY_NOT_FOUND()),
    );
    expect((await new ApiClient(system.url, theirKey.key).get("/api/contacts")).status).toBe(200);
  });

  it("wrong email and wrong password get the same 401; no cookie", async () => {
    const { email } = await userOf(tenant, "member");
    const address = newAddress();
    const wrongPassword = await http(system.url, "POST", "/api/auth/sign-in", {
      body: { email, password: "wrong password!!" },
      headers: { "x-forwarded-for": address },
    });
    const wrongEmail = await http(system.url, "POST", "/api/auth/sign-in", {
      body: { email: uniqueEmail("nobody"), password: PASSWORD },
      headers: { "x-forwarded-for": address },
    });
    expect(answerOf(wrongPassword)).toEqual(answered(gatewayErrors.WRONG_CREDENTIALS()));
    expect(answerOf(wrongEmail)).toEqual(answered(gatewayErrors.WRONG_CREDENTIALS()));
    expect(wrongPassword.body).toEqual(wrongEmail.body);
    expect(wrongPassword.headers.get("set-cookie")).toBeNull();
    const missing = await http(system.url, "POST", "/api/auth/sign-in", { body: { email } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["body", "password"]]);
  });

  it("a stolen cookie without its CSRF token changes nothing (403); reads still work", async () => {
    const { session } = await userOf(tenant, "owner");
    const before = (await tenant.owner.get("/api/contacts")).body.total;
    const refused = await session.request("POST", "/api/contacts", { body: { name: "Forged" }, csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/CSRF/);
    const wrong = await session.request("POST", "/api/contacts", {
      body: { name: "Forged" },
      csrf: false,
      headers: { "x-csrf-token": "x".repeat(43) },
    });
    expect(wrong.status).toBe(403);
    expect((await session.request("POST", "/api/api-keys", { body: { name: "forged" }, csrf: false })).status).toBe(
      403,
    );
    expect((await tenant.owner.get("/api/contacts")).body.total).toBe(before);
    expect((await session.request("GET", "/api/contacts")).status).toBe(200);
  });

  it("signing out ends the session at once; a made-up cookie is 401", async () => {
    const { session } = await userOf(tenant, "admin");
    expect((await session.request("GET", "/api/me")).status).toBe(200);
    expect((await session.request("GET", "/api/auth/session")).body).toMatchObject({
      signed_in: true,
      me: { role: "admin", csrf_token: session.csrfToken },
    });
    const out = await session.request("POST", "/api/auth/sign-out");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const after = await session.request("GET", "/api/me");
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: expect.any(String) });
    expect((await http(system.url, "GET", "/api/me", { headers: { cookie: "vo_session=vs_madeup" } })).status).toBe(
      401,
    );
    expect((await session.request("GET", "/api/auth/session")).body).toEqual({ signed_in: false, me: null });
  });

  it("removing a user ends their sessions", async () => {
    const { session, id } = await userOf(tenant, "member");
    expect((await session.request("GET", "/api/me")).status).toBe(200);
    expect((await admin.request("DELETE", `/admin/users/${id}`)).status).toBe(204);
    expect((await session.request("GET", "/api/me")).status).toBe(401);
    expect((await admin.request("DELETE", `/admin/users/${id}`)).status).toBe(404);
  });

  it("10 failed sign-ins for one email: the 11th attempt is 429 with Retry-After, even with the right password", async () => {
    const { email } = await userOf(tenant, "member");
    for (let i = 0; i < 10; i++) {
      const failed = await http(system.url, "POST", "/api/auth/sign-in", {
        body: { email, password: `wrong password ${i}` },
        headers: { "x-forwarded-for": newAddress() },
      });
      expect(failed.status).toBe(401);
    }
    const limited = await http(system.url, "POST", "/api/auth/sign-in", {
      body: { email, password: PASSWORD },
      headers: { "x-forwarded-for": newAddress() },
    });
    expect(answerOf(limited)).toEqual(answered(gatewayErrors.SIGN_IN_THROTTLED()));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("10 failed sign-ins from one address: that address is refused, another is not", async () => {
    const { email } = await userOf(tenant, "member");
    const address = newAddress();
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await http(system.url, "POST", "/api/auth/sign-in", {
            body: { email: uniqueEmail("guess"), password: "guessing password" },
            headers: { "x-forwarded-for": address },
          })
        ).status,
      ).toBe(401);
    }
    expect(
      (
        await http(system.url, "POST", "/api/auth/sign-in", {
          body: { email, password: PASSWORD },
          headers: { "x-forwarded-for": address },
        })
      ).status,
    ).toBe(429);
    const elsewhere = await BrowserSession.signIn(system.url, email, PASSWORD);
    expect(elsewhere).toBeInstanceOf(BrowserSession);
  });
});

describe("API keys and users through the API", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant(system.url, admin);
  });

  it("an owner generates a key (shown once) that works, lists it without its secret, revokes it: 401", async () => {
    const { session } = await userOf(tenant, "owner");
    const created = await session.request("POST", "/api/api-keys", { body: { name: "Zapier", role: "member" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: "Zapier",
      role: "member",
      key: expect.stringMatching(/^vo_/),
      prefix: expect.any(String),
    });
    const client = new ApiClient(system.url, created.body.key);
    expect((await client.get("/api/contacts")).status).toBe(200);
    const listed = await session.request("GET", "/api/api-keys");
    expect(listed.status).toBe(200);
    expect(listed.body.items.find((k: { id: string }) => k.id === created.body.id)).toMatchObject({
      name: "Zapier",
      revoked_at: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect((await session.request("DELETE", `/api/api-keys/${created.body.id}`)).status).toBe(204);
    expect((await client.get("/api/contacts")).status).toBe(401);
    expect((await session.request("DELETE", "/api/api-keys/not-a-uuid")).status).toBe(422);
  });

  it("members may not generate or revoke keys nor invite (403); admins may not make owners", async () => {
    const member = await userOf(tenant, "member");
    expect(answerOf(await member.session.request("POST", "/api/api-keys", { body: {} }))).toEqual(
      answered(gatewayErrors.ROLE_REQUIRED(["owner", "admin"])),
    );
    expect((await tenant.member.post("/api/api-keys", {})).status).toBe(403);
    expect(
      (await member.session.request("POST", "/api/users", { body: { email: uniqueEmail("x"), role: "member" } }))
        .status,
    ).toBe(403);
    const adminUser = await userOf(tenant, "admin");
    expect(answerOf(await adminUser.session.request("POST", "/api/api-keys", { body: { role: "owner" } }))).toEqual(
      answered(gatewayErrors.KEY_ROLE_ABOVE_OWN("admin", "owner")),
    );
    expect((await adminUser.session.request("POST", "/api/api-keys", { body: { role: "admin" } })).status).toBe(201);
  });

  it("an owner invites a user (201 with setup_url) and removes them; another organization's user is 404", async () => {
    const { session } = await userOf(tenant, "owner");
    const invited = await session.request("POST", "/api/users", {
      body: { email: uniqueEmail("invited"), role: "member" },
    });
    expect(invited.status).toBe(201);
    expect(invited.body.setup_url).toMatch(/\/app\/setup#token=/);
    expect((await session.request("GET", "/api/users")).body.items.map((u: { id: string }) => u.id)).toContain(
      invited.body.id,
    );
    const other = await newTenant(system.url, admin);
    const theirs = await userOf(other, "member");
    expect(answerOf(await session.request("DELETE", `/api/users/${theirs.id}`))).toEqual(
      answered(gatewayErrors.USER_NOT_FOUND()),
    );
    expect((await session.request("DELETE", `/api/users/${invited.body.id}`)).status).toBe(204);
  });

  it("business hours: read by anyone, replaced by owners and admins, 422 on a bad week", async () => {
    const week = { mon: [{ start: "09:00", end: "12:00" }], sat: [] };
    expect(
      (await tenant.member.request("PUT", "/api/settings/business-hours", { body: { business_hours: week } })).status,
    ).toBe(403);
    const set = await tenant.owner.request("PUT", "/api/settings/business-hours", { body: { business_hours: week } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.business_hours.mon).toEqual([{ start: "09:00", end: "12:00" }]);
    expect((await tenant.member.get("/api/settings/business-hours")).body.business_hours.tue).toEqual([]);
    const bad = await tenant.owner.request("PUT", "/api/settings/business-hours", {
      body: { business_hours: { mon: [{ start: "25:00", end: "12:00" }] } },
    });
    expect(bad.status).toBe(422);
  });

  it("Idempotency-Key: a retried key generation answers the same key and makes no second one", async () => {
    const headers = { "Idempotency-Key": `gen-${Date.now()}` };
    const first = await tenant.owner.request("POST", "/api/api-keys", { body: { name: "once" }, headers });
    const again = await tenant.owner.request("POST", "/api/api-keys", { body: { name: "once" }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    const listed = await tenant.owner.get("/api/api-keys");
    expect(listed.body.items.filter((k: { name: string }) => k.name === "once")).toHaveLength(1);
    const other = await tenant.owner.request("POST", "/api/api-keys", { body: { name: "twice" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.detail[0].loc).toEqual(["header", "idempotency-key"]);
  });
});
