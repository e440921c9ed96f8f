import { describe, expect, inject, it } from "vitest";
import { ApiClient } from "@voiceops/platform/testing";

const api = new ApiClient(inject("baseUrl"), undefined);

describe("health", () => {
  it.each(["/health", "/api/health"])("%s reports every dependency", async (path) => {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    expect(Object.keys(res.body.dependencies).sort()).toEqual(["analytics", "bus", "comms", "crm", "database", "fieldops", "jobs"]);
    expect(Object.values(res.body.dependencies).every((state) => state === "ok")).toBe(true);
  });

  it.each(["/health/live", "/api/health/live"])("%s answers 200 without a key", async (path) => {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});
