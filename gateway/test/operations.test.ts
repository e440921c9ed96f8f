import { randomUUID } from "node:crypto";
import net from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger } from "@voiceops/platform";
import { AdminClient, newTenant, runEntry, testAdmin, testEnv, type Tenant } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";

// What operators and clients see when things go wrong: failures upstream, logs, metrics, the
// CLI and a bad configuration.

function captureLogs() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger("info", "voiceops", stream) };
}

describe("a system whose logs are read", () => {
  let system: RunningSystem;
  let tenant: Tenant;
  const logs = captureLogs();
  beforeAll(async () => {
    system = await startSystem({ env: testEnv(), inMemory: true, logger: logs.logger });
    tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("a service that dies mid-request is a 503 'Service temporarily unavailable', never its transport's message", async () => {
    // A "service" that takes the call and then resets the connection, as a crashing process does.
    const resets: net.Socket[] = [];
    const dying = net.createServer((socket) => {
      resets.push(socket);
      socket.once("data", () => socket.resetAndDestroy());
    });
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    const crm = system.peers.url("crm") as string;
    system.peers.set("crm", `http://127.0.0.1:${(dying.address() as net.AddressInfo).port}`);
    try {
      for (const [method, path, body] of [
        ["GET", "/api/contacts", undefined],
        ["POST", "/api/contacts", { name: "Never Written" }],
        ["GET", `/api/contacts/${randomUUID()}`, undefined],
      ] as const) {
        const res = await tenant.owner.request(method, path, { body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(503);
        expect(res.body).toEqual({ detail: "Service temporarily unavailable" });
      }
      expect(resets.length).toBeGreaterThan(0);
    } finally {
      system.peers.set("crm", crm);
      await new Promise((resolve) => dying.close(resolve));
    }
    // A service that is not there at all: the same.
    system.peers.set("crm", "http://127.0.0.1:9");
    try {
      const res = await tenant.owner.get("/api/contacts");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: "Service temporarily unavailable" });
    } finally {
      system.peers.set("crm", crm);
    }
    expect((await tenant.owner.get("/api/contacts")).status).toBe(200);
  });

  it("a client that goes away mid-request is not logged as an error", async () => {
    const { hostname, port } = new URL(system.url);
    const before = logs.lines.length;
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(
          `POST /api/contacts HTTP/1.1\r\nHost: x\r\nX-API-Key: ${tenant.owner.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"Half`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 300);
      });
    });
    // The gateway notices the abort, then answers the next request as usual.
    expect((await tenant.owner.get("/api/contacts")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const errors = logs.lines.slice(before).filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });

  it("serves /metrics on the admin listener only, not on the public port", async () => {
    const open = await fetch(`${system.url}/metrics`);
    expect(open.status).toBe(404);
    const metrics = await fetch(`${system.adminUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toMatch(/text\/plain/);
    const text = await metrics.text();
    expect(text).toContain("http_request_duration_seconds");
    expect(text).toContain("rpc_duration_seconds");
  });

  it("logs no route path with data in it: unmatched routes are 'unmatched'", async () => {
    const before = logs.lines.length;
    await tenant.owner.get("/api/no-such-thing/+15550107777");
    await fetch(`${system.url}/api/contacts/+15550107777`);
    await tenant.owner.get(`/api/contacts/${randomUUID()}`);
    const text = JSON.stringify(logs.lines.slice(before));
    expect(text).not.toContain("5550107777");
    expect(text).toContain("GET /api/contacts/{contact_id}");
  });
});

describe("the apikey CLI", () => {
  const env = () => testEnv({ ADMIN_URL: inject("adminUrl"), ADMIN_TOKEN: inject("adminToken"), LOG_LEVEL: "info" });

  it.each([
    [["--role", "god"], /^invalid --role "god": must be owner, admin, member$/],
    [["--timezone", "Mars/Olympus"], /^invalid --timezone "Mars\/Olympus"/],
    [["--country", "XX"], /^invalid --country "XX"/],
  ])("validates %j before creating anything, in one line", async (args, message) => {
    const org = `CLI Validation ${randomUUID()}`;
    const cli = runEntry("gateway/src/cli/apikey.ts", env(), ["--org", org, ...args]);
    expect(await cli.exited).toBe(1);
    const lines = cli.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    const found = await testAdmin().request("GET", `/admin/organizations?name=${encodeURIComponent(org)}`);
    expect(found.body.total).toBe(0);
  });
});

describe("a missing or bad variable at start-up", () => {
  it.each([
    ["gateway/src/main.ts", { DATABASE_URL: "" }, /^invalid configuration: DATABASE_URL is required/],
    [
      "gateway/src/main.ts",
      { RATE_LIMIT_PER_MINUTE: "lots" },
      /^invalid configuration: RATE_LIMIT_PER_MINUTE must be an integer/,
    ],
    ["gateway/src/main.ts", { TRUST_PROXY: "true" }, /^invalid configuration: TRUST_PROXY/],
    ["gateway/src/main.ts", { PUBLIC_URL: "dash.example.com" }, /^invalid configuration: PUBLIC_URL/],
    [
      "services/crm/src/main.ts",
      { DATABASE_URL: "postgres://127.0.0.1:1/x", NATS_URL: "nats://127.0.0.1:1", INTERNAL_TOKEN: "" },
      /^invalid configuration: INTERNAL_TOKEN is required/,
    ],
    [
      "gateway/src/embedded.ts",
      { SHUTDOWN_DELAY_SECONDS: "soon" },
      /^invalid configuration: SHUTDOWN_DELAY_SECONDS must be an integer/,
    ],
  ])("%s with %j prints one line naming it, no stack trace", async (entry, overrides, message) => {
    const base = testEnv({ DATABASE_URL: "postgres://127.0.0.1:1/x", NATS_URL: "nats://127.0.0.1:1" });
    const proc = runEntry(entry, { ...base, ...overrides });
    expect(await proc.exited).toBe(1);
    const lines = proc.output().trim().split("\n");
    expect(lines, proc.output()).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});
