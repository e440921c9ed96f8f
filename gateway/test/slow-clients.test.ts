import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, newTenant, testEnv, type Tenant } from "@voiceops/platform/testing";
import { readGatewayConfig } from "../src/config.js";
import { startSystem, type RunningSystem } from "../src/system.js";

// A client that sends its request a few bytes at a time holds a connection; the public listener
// cuts it off. Only behaviour is asserted: every wait below is many times the timeout.

interface Exchange {
  /** Everything the server sent before the connection closed. */
  received: string;
  /** The client was still sending when the server closed. */
  closedByServer: boolean;
}

/**
 * Sends `head` at once, then one of `drip` every 200 ms until the server closes the connection
 * (or 30 s pass: the test fails on that).
 */
function dribble(url: string, head: string, drip: string): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = "";
    let dripping = true;
    const timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(drip);
    }, 200);
    const giveUp = setTimeout(() => {
      dripping = false;
      socket.destroy();
    }, 30_000);
    socket.on("connect", () => socket.write(head));
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ received, closedByServer: dripping });
    });
  });
}

describe("slow clients", () => {
  let system: RunningSystem;
  let tenant: Tenant;
  beforeAll(async () => {
    system = await startSystem({
      env: testEnv({ HEADERS_TIMEOUT_SECONDS: "1", REQUEST_TIMEOUT_SECONDS: "2" }),
      inMemory: true,
    });
    tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("a client dribbling header lines gets a 408 or a close", async () => {
    const result = await dribble(system.url, "GET /api/contacts HTTP/1.1\r\nHost: localhost\r\n", "X-Slow: yes\r\n");
    expect(result.closedByServer).toBe(true);
    if (result.received !== "") expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
  }, 40_000);

  it("a client dribbling its body gets a 408", async () => {
    const head = `POST /api/contacts HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${tenant.owner.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`;
    const result = await dribble(system.url, head, "a");
    expect(result.closedByServer).toBe(true);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.received).toContain('{"detail":"Request timeout"}');
  }, 40_000);

  it("a prompt client on the same listener is served", async () => {
    const res = await tenant.owner.request("GET", "/api/contacts");
    expect(res.status).toBe(200);
  });
});

describe("connections per client address", () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ env: testEnv({ MAX_CONNECTIONS_PER_CLIENT: "2" }), inMemory: true });
  });
  afterAll(async () => {
    await system?.stop();
  });

  /** Opens a connection and sends one keep-alive request; what came back before `wait` ended it. */
  function open(): { socket: net.Socket; answer: Promise<string> } {
    const { hostname, port } = new URL(system.url);
    const socket = net.connect(Number(port), hostname);
    socket.on("error", () => undefined);
    const answer = new Promise<string>((resolve) => {
      let received = "";
      socket.on("connect", () => socket.write("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes('{"status":"ok"}')) resolve(received);
      });
      socket.on("close", () => resolve(received));
    });
    return { socket, answer };
  }

  it("closes a connection beyond the limit at once and serves the others", async () => {
    const first = open();
    const second = open();
    // Both answered and still open (keep-alive): the address holds two connections.
    expect(await first.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(await second.answer).toMatch(/^HTTP\/1\.1 200 /);
    const third = open();
    expect(await third.answer).toBe("");
    first.socket.destroy();
    await new Promise((resolve) => first.socket.once("close", resolve));
    // A slot is free again once a connection closes; the server learns of it a moment later.
    let fourth = "";
    for (let attempt = 0; attempt < 50 && fourth === ""; attempt++) {
      const next = open();
      fourth = await next.answer;
      next.socket.destroy();
    }
    expect(fourth).toMatch(/^HTTP\/1\.1 200 /);
    second.socket.destroy();
  }, 40_000);
});

describe("slow-client settings", () => {
  it("are checked at start-up", () => {
    expect(readGatewayConfig({}).slowClients).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
      maxConnectionsPerClient: 100,
    });
    expect(() => readGatewayConfig({ HEADERS_TIMEOUT_SECONDS: "0" })).toThrow(/HEADERS_TIMEOUT_SECONDS/);
    expect(() => readGatewayConfig({ REQUEST_TIMEOUT_SECONDS: "soon" })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
    expect(() => readGatewayConfig({ HEADERS_TIMEOUT_SECONDS: "30", REQUEST_TIMEOUT_SECONDS: "10" })).toThrow(
      /REQUEST_TIMEOUT_SECONDS/,
    );
    expect(() => readGatewayConfig({ MAX_CONNECTIONS_PER_CLIENT: "-1" })).toThrow(/MAX_CONNECTIONS_PER_CLIENT/);
    expect(readGatewayConfig({ MAX_CONNECTIONS_PER_CLIENT: "0" }).slowClients.maxConnectionsPerClient).toBe(0);
  });
});
