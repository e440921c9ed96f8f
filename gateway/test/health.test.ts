import { describe, expect, inject, it } from "vitest";
import { SERVICE_NAMES } from "@voiceops/platform/registry";
import { ApiClient, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

const api = new ApiClient(inject("baseUrl"), undefined);

describe("health", () => {
  it.each(["/health", "/api/health"])("%s reports every dependency", async (path) => {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    expect(Object.keys(res.body.dependencies).sort()).toEqual(["bus", "database", ...SERVICE_NAMES].sort());
    expect(Object.values(res.body.dependencies).every((state) => state === "ok")).toBe(true);
  });

  it.each(["/health/live", "/api/health/live"])("%s answers 200 without a key", async (path) => {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("health with a dependency down", () => {
  it("answers 503 and names the service that is down; liveness stays 200", async () => {
    const system = await startSystem({ env: testEnv(), inMemory: true });
    try {
      const client = new ApiClient(system.url, undefined);
      expect((await client.get("/health")).status).toBe(200);
      await system.services.find((s) => s.name === "crm")?.stop();
      const res = await client.get("/api/health");
      expect(res.status).toBe(503);
      expect(res.body.status).toBe("degraded");
      expect(res.body.dependencies.crm).toBe("down");
      expect(res.body.dependencies.jobs).toBe("ok");
      expect((await client.get("/health/live")).status).toBe(200);
      // The replica itself can still serve the other services' routes: it stays ready.
      expect((await client.get("/health/ready")).status).toBe(200);
    } finally {
      await system.stop();
    }
  });
});
