import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  AdminClient,
  ApiClient,
  eventually,
  newTenant,
  testAdmin,
  testEnv,
  type Tenant,
} from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";

const baseUrl = inject("baseUrl");
const admin = testAdmin();

describe("API keys", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant(baseUrl, admin);
  });

  it("401 without a key, with JSON detail", async () => {
    const res = await new ApiClient(baseUrl, undefined).get("/api/contacts");
    expect(res.status).toBe(401);
    expect(typeof res.body.detail).toBe("string");
  });

  it("401 for an unknown key", async () => {
    const res = await new ApiClient(baseUrl, "vo_not-a-real-key").get("/api/contacts");
    expect(res.status).toBe(401);
    expect(typeof res.body.detail).toBe("string");
  });

  it("a revoked key stops working at once", async () => {
    const key = await admin.createKey(tenant.orgId, { role: "member" });
    const client = new ApiClient(baseUrl, key.key);
    expect((await client.get("/api/contacts")).status).toBe(200);
    const revoked = await admin.request("DELETE", `/admin/api-keys/${key.id}`);
    expect(revoked.status).toBe(204);
    const started = Date.now();
    await eventually(async () => ((await client.get("/api/contacts")).status === 401 ? true : undefined), 60_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    const listed = await admin.request("GET", `/admin/organizations/${tenant.orgId}/api-keys`);
    expect(listed.body.items.find((k: { id: string }) => k.id === key.id).revoked_at).toEqual(expect.any(String));
  });

  it("a key stops working when it expires; one that expires later works", async () => {
    const soon = await admin.createKey(tenant.orgId, { expires_at: new Date(Date.now() + 1_500).toISOString() });
    const client = new ApiClient(baseUrl, soon.key);
    await eventually(async () => ((await client.get("/api/contacts")).status === 401 ? true : undefined), 30_000, 200);
    const future = await admin.createKey(tenant.orgId, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await new ApiClient(baseUrl, future.key).get("/api/contacts")).status).toBe(200);
  });

  it("refuses to create a key that has already expired (422 on expires_at)", async () => {
    const before = (await admin.request("GET", `/admin/organizations/${tenant.orgId}/api-keys`)).body.total;
    for (const expires_at of [
      new Date(Date.now() - 60_000).toISOString(),
      "0000-01-01T00:00:00Z",
      "2020-01-01T00:00:00Z",
    ]) {
      const res = await admin.request("POST", `/admin/organizations/${tenant.orgId}/api-keys`, {
        role: "member",
        expires_at,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([["body", "expires_at"]]);
    }
    expect((await admin.request("GET", `/admin/organizations/${tenant.orgId}/api-keys`)).body.total).toBe(before);
  });

  it("ignores X-Organization-Id: a key only ever sees its own organization", async () => {
    const other = await newTenant(baseUrl, admin);
    const mine = await tenant.owner.post("/api/contacts", { name: "Mine Only" });
    await other.owner.post("/api/contacts", { name: "Theirs Only" });
    const res = await tenant.owner.get("/api/contacts?search=Only", { "X-Organization-Id": other.orgId });
    expect(res.status).toBe(200);
    expect(res.body.items.map((c: { id: string }) => c.id)).toEqual([mine.body.id]);
  });

  it("403 when the role is too low", async () => {
    const contact = await tenant.owner.post("/api/contacts", { name: "Keep Me" });
    const res = await tenant.member.delete(`/api/contacts/${contact.body.id}`);
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/owner or admin/);
    expect((await tenant.owner.get(`/api/contacts/${contact.body.id}`)).status).toBe(200);
  });

  it("admin keys may delete contacts", async () => {
    const key = await admin.createKey(tenant.orgId, { role: "admin" });
    const contact = await tenant.owner.post("/api/contacts", { name: "Admin Deletes" });
    expect((await new ApiClient(baseUrl, key.key).delete(`/api/contacts/${contact.body.id}`)).status).toBe(204);
  });
});

describe("every response", () => {
  it("carries X-Request-Id, echoing the caller's", async () => {
    const api = new ApiClient(baseUrl, undefined);
    const echoed = await api.get("/health/live", { "X-Request-Id": "trace-123" });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
    const fresh = await api.get("/api/contacts");
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ["/api/contacts", 401],
    ["/api/no-such-route", 404],
    ["/health/live", 200],
  ])("carries RateLimit headers (%s)", async (path, status) => {
    const res = await new ApiClient(baseUrl, undefined).get(path);
    expect(res.status).toBe(status);
    for (const header of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
      expect(Number(res.headers.get(header))).toBeGreaterThanOrEqual(0);
    }
  });

  it("answers unknown routes with a JSON 404, key or not", async () => {
    const tenant = await newTenant(baseUrl, admin);
    for (const client of [tenant.owner, new ApiClient(baseUrl, undefined)]) {
      const res = await client.get("/api/unknown/thing");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Not Found" });
    }
  });
});

describe("rate limit", () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ env: testEnv({ RATE_LIMIT_PER_MINUTE: "3" }), inMemory: true });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("answers 429 with Retry-After past the per-key limit", async () => {
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await tenant.owner.get("/api/contacts");
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.headers.get("ratelimit-limit")).toBe("3");
    expect(last!.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(typeof last!.body.detail).toBe("string");
    // Another key has its own budget.
    expect((await tenant.member.get("/api/contacts")).status).toBe(200);
  });
});

describe("rate limit by client address before authentication", () => {
  let system: RunningSystem;
  let tenant: Tenant;
  beforeAll(async () => {
    // Behind a proxy on loopback, X-Forwarded-For names the client: the tests play several clients.
    system = await startSystem({
      env: testEnv({ RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "loopback" }),
      inMemory: true,
    });
    tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  });
  afterAll(async () => {
    await system?.stop();
  });

  const from = (address: string, key: string | undefined, path = "/api/contacts") =>
    new ApiClient(system.url, key).get(path, { "X-Forwarded-For": address });
  const madeUp = () => `vo_${randomUUID().replaceAll("-", "")}`;

  it("made-up keys share their sender's address bucket: 429 once it is empty, valid keys from there too", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await from("203.0.113.7", madeUp())).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const refused = await from("203.0.113.7", madeUp());
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.body).toEqual({ detail: expect.any(String) });
    // The address is limited before any key is looked at.
    expect((await from("203.0.113.7", tenant.owner.apiKey)).status).toBe(429);
    // Another address is not.
    expect((await from("198.51.100.9", madeUp())).status).toBe(401);
  });

  it("an IPv6 client's whole /64 is one address", async () => {
    for (let i = 1; i <= 3; i++) expect((await from(`2001:db8:aa:1::${i}`, madeUp())).status).toBe(401);
    expect((await from("2001:db8:aa:1:ffff::9", madeUp())).status).toBe(429);
    expect((await from("2001:db8:aa:2::1", madeUp())).status).toBe(401);
  });

  it("requests with a valid key count against the key, not the address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await from("192.0.2.44", tenant.member.apiKey)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const key = await new AdminClient(system.adminUrl, system.adminToken).createKey(tenant.orgId, { role: "member" });
    expect((await from("192.0.2.44", key.key)).status).toBe(200);
    expect((await from("192.0.2.44", madeUp())).status).toBe(401);
  });

  it("never limits the health routes, and they still carry the headers", async () => {
    for (let i = 0; i < 4; i++) await from("192.0.2.99", madeUp());
    for (const path of ["/health/live", "/api/health/live", "/health/ready", "/health", "/api/health"]) {
      for (let i = 0; i < 3; i++) {
        const res = await from("192.0.2.99", undefined, path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get("ratelimit-limit")).toBe("3");
        expect(res.headers.get("ratelimit-remaining")).toBe("0");
      }
    }
  });
});

describe("revocation across gateway replicas", () => {
  const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);

  it.skipIf(!distributed)("a key revoked on one replica stops working on another within 5 s", async () => {
    // A second, independent system on the same PostgreSQL and NATS: another replica.
    const replica = await startSystem({ env: testEnv() });
    try {
      const tenant = await newTenant(baseUrl, admin);
      const key = await admin.createKey(tenant.orgId, { role: "member" });
      const onReplica = new ApiClient(replica.url, key.key);
      expect((await onReplica.get("/api/contacts")).status).toBe(200);
      expect((await admin.request("DELETE", `/admin/api-keys/${key.id}`)).status).toBe(204);
      const started = Date.now();
      await eventually(
        async () => ((await onReplica.get("/api/contacts")).status === 401 ? true : undefined),
        5_000,
        20,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await replica.stop();
    }
  });
});
