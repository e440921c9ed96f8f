import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, eventually, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";
import { attribute, CLIENT, CONSUMER, otlpReceiver, SERVER } from "./otlp-receiver.js";

// One request, one trace: the gateway, the crm's RPC, its SQL and the consumers of its event,
// as a real OTLP/HTTP receiver (JSON) gets them from the SDK.

describe("tracing with an OTLP endpoint", () => {
  const receiver = otlpReceiver();
  let system: RunningSystem;
  // With PostgreSQL, a database (and so NATS namespace) of its own: the shared test system's
  // consumers, which do not trace, would otherwise take part of its events.
  let database: Awaited<ReturnType<typeof isolatedDatabase>> | undefined;

  beforeAll(async () => {
    const port = await receiver.listen();
    if (process.env.DATABASE_URL) database = await isolatedDatabase(process.env.DATABASE_URL);
    const env = testEnv({
      ...(database ? { DATABASE_URL: database.url } : {}),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    system = await startSystem({ env, inMemory: true });
  });
  afterAll(async () => {
    await system?.stop();
    await database?.drop();
    await receiver.close();
  });

  it("puts the gateway, the crm's RPC, its SQL and the event's consumers in the caller's trace", async () => {
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    const traceId = randomBytes(16).toString("hex");
    const callerSpan = randomBytes(8).toString("hex");
    const res = await tenant.owner.request("POST", "/api/contacts", {
      body: { name: "Traced Caller", phone_number: "+15550190001" },
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    expect(res.status).toBe(201);
    const traceparent = res.headers.get("traceparent") ?? "";
    expect(traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const trace = await eventually(async () => {
      const spans = receiver.spans.filter((span) => span.traceId === traceId);
      const gateway = spans.find((span) => span.kind === SERVER && attribute(span, "http.route") === "/api/contacts");
      const rpc = spans.find(
        (span) =>
          span.kind === SERVER &&
          attribute(span, "rpc.system") === "connect_rpc" &&
          attribute(span, "rpc.service") === "voiceops.crm.v1.CrmService",
      );
      const sql = spans.find(
        (span) => attribute(span, "db.system") === "postgresql" && attribute(span, "db.statement"),
      );
      const consumer = spans.find(
        (span) => span.kind === CONSUMER && attribute(span, "messaging.destination.name") === "crm.contact.created",
      );
      if (!(gateway && rpc && sql && consumer))
        throw new Error(`incomplete trace: ${spans.map((span) => span.name).join(", ")}`);
      return { gateway, rpc, sql, consumer };
    });
    // The gateway's span continues the caller's and is the one the response names.
    expect(trace.gateway.parentSpanId).toBe(callerSpan);
    expect(traceparent.split("-")[2]).toBe(trace.gateway.spanId);
    expect(attribute(trace.gateway, "http.request.method")).toBe("POST");
    expect(attribute(trace.gateway, "http.response.status_code")).toBe("201");
    expect(attribute(trace.rpc, "rpc.method")).toBe("CreateContact");
    expect(attribute(trace.rpc, "rpc.grpc.status_code")).toBe("0");
    expect(trace.gateway.service).toBe("voiceops");
  });

  it("puts each webhook delivery attempt in the trace of the request that made the event, and sends its traceparent", async () => {
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    const received: string[] = [];
    const hooks = http.createServer((req, res) => {
      received.push(String(req.headers.traceparent ?? ""));
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", () => resolve()));
    try {
      const url = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
      const endpoint = await tenant.owner.post("/api/webhooks", { url, event_types: ["contact.created"] });
      expect(endpoint.status).toBe(201);
      // Requests at once, each in a trace of its own: their events reach the webhooks service's
      // consumer together (one relay batch, one consumer transaction) as often as not, and
      // each delivery must still continue the trace of the request that made its event.
      const traceIds = Array.from({ length: 8 }, () => randomBytes(16).toString("hex"));
      const created = await Promise.all(
        traceIds.map((traceId, i) =>
          tenant.owner.request("POST", "/api/contacts", {
            body: { name: `Hooked Caller ${i}`, phone_number: `+1555019010${i}` },
            headers: { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
          }),
        ),
      );
      expect(created.map((res) => res.status)).toEqual(traceIds.map(() => 201));
      const deliverySpan = (traceId: string) =>
        receiver.spans.find(
          (candidate) =>
            candidate.traceId === traceId && candidate.kind === CLIENT && attribute(candidate, "webhook.id"),
        );
      // Every request's delivery, once all have been sent (each in some trace).
      await eventually(async () => (received.length >= traceIds.length ? true : undefined), 60_000);
      const deliveries = await eventually(async () => {
        const spans = traceIds.map(deliverySpan);
        const missing = traceIds.filter((_, i) => !spans[i]);
        if (missing.length > 0) throw new Error(`no delivery span in the trace of ${missing.length} requests`);
        return spans as NonNullable<ReturnType<typeof deliverySpan>>[];
      });
      for (const delivery of deliveries) {
        expect(attribute(delivery, "http.response.status_code")).toBe("204");
        expect(attribute(delivery, "webhook.endpoint_id")).toBe(endpoint.body.id);
        expect(attribute(delivery, "webhook.attempt")).toBe("1");
        // The receiver was sent the attempt's own span as its parent.
        expect(received).toContain(`00-${delivery.traceId}-${delivery.spanId}-01`);
      }
    } finally {
      await new Promise<void>((resolve) => hooks.close(() => resolve()));
    }
  });
});
