import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tracingOn } from "@voiceops/platform";
import { AdminClient, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";

describe("tracing without an OTLP endpoint", () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem({ env: testEnv(), inMemory: true });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("starts no SDK: the tracer is the API's no-op one and responses carry no traceparent", async () => {
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    const res = await tenant.owner.request("POST", "/api/contacts", {
      body: { name: "Untraced Caller", phone_number: "+15550190002" },
      headers: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("traceparent")).toBeNull();
    expect(tracingOn()).toBe(false);
    const span = trace.getTracer("check").startSpan("check");
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceId).toBe("00000000000000000000000000000000");
    span.end();
  });
});
