import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  eventually,
  expect422,
  expectStatus,
  tenantFactory,
  UNKNOWN_ID,
  type Tenant,
} from "@voiceops/platform/testing";
import { type Received, Receiver } from "./receiver.js";

// Deliveries to a receiver on 127.0.0.1 that verifies them with the official standardwebhooks
// library, in both modes. The test system retries on "0,2s,2s,2s" (WEBHOOK_RETRY_SCHEDULE).

const tenant = tenantFactory();
const internalKey = inject("internalApiKey");
const WAIT_MS = 60_000;

interface Body {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

function headersOf(request: Received): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
}

/** The body, after the library accepted its signature with this secret (it throws otherwise). */
function verified(secret: string, request: Received): Body {
  new Webhook(secret).verify(request.body, headersOf(request));
  return JSON.parse(request.body) as Body;
}

async function endpoint(t: Tenant, url: string, eventTypes?: string[]): Promise<{ id: string; secret: string }> {
  return expectStatus(
    await t.owner.post("/api/webhooks", { url, ...(eventTypes ? { event_types: eventTypes } : {}) }),
    201,
  );
}

async function newContact(t: Tenant, name: string): Promise<{ id: string }> {
  return expectStatus(await t.owner.post("/api/contacts", { name }), 201);
}

describe("webhook deliveries", () => {
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(() => receiver.stop());

  it("posts a subscribed event, signed, with the resource as the REST API returns it", async () => {
    const t = await tenant();
    const hook = await endpoint(t, receiver.url("/created"), ["contact.created"]);
    const contact = await newContact(t, "Webhook Jane");
    const request = await eventually(async () => receiver.received.find((r) => r.path === "/created"), WAIT_MS);
    const body = verified(hook.secret, request);
    expect(body.type).toBe("contact.created");
    expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(body.data).toEqual(expectStatus(await t.owner.get(`/api/contacts/${contact.id}`), 200));
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const deliveries = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries`), 200);
    expect(deliveries.total).toBe(1);
    expect(deliveries.items[0]).toMatchObject({
      event_id: request.headers["webhook-id"],
      event_type: "contact.created",
    });
  });

  it("delivers only the types an endpoint subscribed to; deletions carry {id}", async () => {
    const t = await tenant();
    const leadsOnly = await endpoint(t, receiver.url("/leads-only"), ["contact.deleted"]);
    const everything = await endpoint(t, receiver.url("/everything"));
    const contact = await newContact(t, "Filter Fred");
    expect((await t.owner.delete(`/api/contacts/${contact.id}`)).status).toBe(204);
    // Events of one stream are recorded in order: once "everything" has the deletion, both
    // endpoints' deliveries of the creation and the deletion exist.
    await eventually(
      async () =>
        receiver.received.find((r) => r.path === "/everything" && JSON.parse(r.body).type === "contact.deleted"),
      WAIT_MS,
    );
    const filtered = expectStatus(await t.owner.get(`/api/webhooks/${leadsOnly.id}/deliveries`), 200);
    expect(filtered.items.map((item: { event_type: string }) => item.event_type)).toEqual(["contact.deleted"]);
    const all = expectStatus(
      await t.owner.get(`/api/webhooks/${everything.id}/deliveries?event_type=contact.created`),
      200,
    );
    expect(all.total).toBe(1);
    const deletion = await eventually(async () => receiver.received.find((r) => r.path === "/leads-only"), WAIT_MS);
    expect(verified(leadsOnly.secret, deletion).data).toEqual({ id: contact.id });
  });

  it("posts call.recording_ready with the call as GET /api/calls lists it", async () => {
    const t = await tenant();
    const hook = await endpoint(t, receiver.url("/recordings"), ["call.recording_ready"]);
    const sessionId = `webhook-recording-${Date.now()}`;
    const ended = await t.owner.request("POST", "/api/activities", {
      body: { activity_type: "CALL_ENDED", session_id: sessionId, metadata: { duration_seconds: 42 } },
      headers: { "x-internal-key": internalKey },
    });
    expectStatus(ended, 201);
    const audio = Buffer.from("ID3 webhook recording");
    expectStatus(await t.owner.upload("PUT", `/api/calls/${sessionId}/recording`, audio, "audio/mpeg"), 200);
    const request = await eventually(async () => receiver.received.find((r) => r.path === "/recordings"), WAIT_MS);
    const body = verified(hook.secret, request);
    expect(body.type).toBe("call.recording_ready");
    const listed = expectStatus(await t.owner.get("/api/calls"), 200).items;
    expect(body.data).toEqual(listed.find((call: { session_id: string }) => call.session_id === sessionId));
    expect(body.data).toMatchObject({ session_id: sessionId, has_recording: true });
  });

  it("posts campaign.created with the campaign as the REST API returns it", async () => {
    const t = await tenant();
    const hook = await endpoint(t, receiver.url("/campaigns"), ["campaign.created"]);
    const campaign = expectStatus(await t.owner.post("/api/campaigns", { name: "Spring Tune-ups" }), 201);
    const request = await eventually(async () => receiver.received.find((r) => r.path === "/campaigns"), WAIT_MS);
    const body = verified(hook.secret, request);
    expect(body.type).toBe("campaign.created");
    expect(body.data).toEqual(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200));
  });

  it("posts dnc_entry.created with the entry as GET /api/dnc lists it, and dnc_entry.deleted with {id}", async () => {
    const t = await tenant();
    const hook = await endpoint(t, receiver.url("/dnc"), ["dnc_entry.created", "dnc_entry.deleted"]);
    const phone = "+15550148822";
    expectStatus(await t.owner.post("/api/dnc/bulk", { phone_numbers: [phone], reason: "Asked by email" }), 200);
    const [entry] = expectStatus(await t.owner.get("/api/dnc"), 200).items;
    expect(entry.phone_number).toBe(phone);
    expect((await t.owner.delete(`/api/dnc/${encodeURIComponent(phone)}`)).status).toBe(204);
    const requests = await eventually(async () => {
      const got = receiver.received.filter((r) => r.path === "/dnc");
      return got.length >= 2 ? got : undefined;
    }, WAIT_MS);
    // Both are sent at once: they may arrive in either order.
    const bodies = requests
      .map((request) => verified(hook.secret, request))
      .sort((a, b) => a.type.localeCompare(b.type));
    expect(bodies.map((body) => [body.type, body.data])).toEqual([
      ["dnc_entry.created", entry],
      ["dnc_entry.deleted", { id: entry.id }],
    ]);
  });

  it("retries a failure with the same webhook-id, signed again for each attempt, and logs every attempt", async () => {
    const t = await tenant();
    let calls = 0;
    const path = "/flaky";
    const previous = receiver.answer;
    receiver.answer = (request, index) => {
      if (request.path !== path) return previous(request, index);
      calls++;
      return calls <= 2 ? { status: 500, body: "x".repeat(5_000) } : { status: 204 };
    };
    const hook = await endpoint(t, receiver.url(path), ["contact.created"]);
    await newContact(t, "Retry Rita");
    const attempts = await eventually(async () => {
      const got = receiver.received.filter((r) => r.path === path);
      return got.length >= 3 ? got : undefined;
    }, WAIT_MS);
    const ids = new Set(attempts.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    const stamps = attempts.map((r) => Number(r.headers["webhook-timestamp"]));
    // The retries come 2 s (less 10 %) apart at least: each carries its own timestamp and signature.
    expect(stamps[1]).toBeGreaterThan(stamps[0] as number);
    expect(stamps[2]).toBeGreaterThan(stamps[1] as number);
    expect(new Set(attempts.map((r) => r.headers["webhook-signature"])).size).toBe(3);
    for (const attempt of attempts) verified(hook.secret, attempt);
    const log = await eventually(async () => {
      const list = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries?status=succeeded`), 200);
      return list.total === 1 ? list.items[0] : undefined;
    }, WAIT_MS);
    expect(log).toMatchObject({ attempts: 3, last_response_status: 204, last_error: null, next_attempt_at: null });
    const detail = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries/${log.id}`), 200);
    expect(detail.attempts_log.map((a: { response_status: number }) => a.response_status)).toEqual([500, 500, 204]);
    receiver.answer = previous;
  });

  it("keeps at most 1 KB of an answer's body in the log", async () => {
    const t = await tenant();
    const path = "/big-failure";
    const previous = receiver.answer;
    receiver.answer = (request, index) =>
      request.path === path ? { status: 500, body: "y".repeat(10_000) } : previous(request, index);
    const hook = await endpoint(t, receiver.url(path), ["contact.created"]);
    await newContact(t, "Big Body");
    const log = await eventually(async () => {
      const list = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries`), 200);
      return list.items[0]?.attempts >= 1 ? list.items[0] : undefined;
    }, WAIT_MS);
    expect(log.status).toBe("failed");
    expect(log.last_response_status).toBe(500);
    expect(log.last_response_body.length).toBeLessThanOrEqual(1024);
    expect(log.last_response_body.length).toBeGreaterThan(0);
    expect(log.next_attempt_at).not.toBeNull();
    receiver.answer = previous;
  });

  it("disables an endpoint that answers 410", async () => {
    const t = await tenant();
    const path = "/gone";
    const previous = receiver.answer;
    receiver.answer = (request, index) => (request.path === path ? { status: 410 } : previous(request, index));
    const hook = await endpoint(t, receiver.url(path), ["contact.created"]);
    await newContact(t, "Gone Gus");
    const disabled = await eventually(async () => {
      const read = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}`), 200);
      return read.enabled ? undefined : read;
    }, WAIT_MS);
    expect(disabled.disabled_reason).toBe("gone");
    receiver.answer = previous;
  });

  it("waits as long as Retry-After says before the next attempt", async () => {
    const t = await tenant();
    const path = "/busy";
    let calls = 0;
    const previous = receiver.answer;
    receiver.answer = (request, index) => {
      if (request.path !== path) return previous(request, index);
      calls++;
      return calls === 1 ? { status: 503, headers: { "retry-after": "4" } } : { status: 200 };
    };
    const hook = await endpoint(t, receiver.url(path), ["contact.created"]);
    await newContact(t, "Busy Bea");
    const attempts = await eventually(async () => {
      const got = receiver.received.filter((r) => r.path === path);
      return got.length >= 2 ? got : undefined;
    }, WAIT_MS);
    const [first, second] = attempts.map((r) => Number(r.headers["webhook-timestamp"]));
    // The schedule alone would retry after 2 s; Retry-After asks for 4.
    expect((second as number) - (first as number)).toBeGreaterThanOrEqual(3);
    for (const attempt of attempts) verified(hook.secret, attempt);
    receiver.answer = previous;
  });

  it("signs with both secrets after a rotation", async () => {
    const t = await tenant();
    const hook = await endpoint(t, receiver.url("/rotated"), ["contact.created"]);
    const rotated = expectStatus(await t.owner.post(`/api/webhooks/${hook.id}/rotate-secret`, {}), 200);
    await newContact(t, "Rotated Rob");
    const request = await eventually(async () => receiver.received.find((r) => r.path === "/rotated"), WAIT_MS);
    expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    verified(rotated.secret, request);
    verified(hook.secret, request);
  });

  it("sends webhook.test to one endpoint, resends a delivery and recovers failed ones", async () => {
    const t = await tenant();
    const path = "/tested";
    let failing = true;
    const previous = receiver.answer;
    receiver.answer = (request, index) =>
      request.path === path ? { status: failing ? 500 : 200 } : previous(request, index);
    const hook = await endpoint(t, receiver.url(path), ["lead.created"]);
    const test = expectStatus(await t.owner.post(`/api/webhooks/${hook.id}/test`, {}), 202);
    const first = await eventually(async () => receiver.received.find((r) => r.path === path), WAIT_MS);
    const body = verified(hook.secret, first);
    expect(body).toMatchObject({ type: "webhook.test", data: { id: hook.id } });
    expect(first.headers["webhook-id"]).toBe(test.event_id);
    // Let the schedule run out: 4 attempts, then exhausted.
    await eventually(async () => {
      const read = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries/${test.delivery_id}`), 200);
      return read.status === "exhausted" ? read : undefined;
    }, WAIT_MS);
    failing = false;
    const recovered = expectStatus(
      await t.owner.post(`/api/webhooks/${hook.id}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString() }),
      202,
    );
    expect(recovered.queued).toBe(1);
    const succeeded = await eventually(async () => {
      const read = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries/${test.delivery_id}`), 200);
      return read.status === "succeeded" ? read : undefined;
    }, WAIT_MS);
    expect(succeeded.attempts).toBe(5);
    expect(succeeded.attempts_log).toHaveLength(5);
    const resent = expectStatus(
      await t.owner.post(`/api/webhooks/${hook.id}/deliveries/${test.delivery_id}/resend`, {}),
      202,
    );
    expect(resent.delivery_id).toBe(test.delivery_id);
    await eventually(async () => {
      const read = expectStatus(await t.owner.get(`/api/webhooks/${hook.id}/deliveries/${test.delivery_id}`), 200);
      return read.attempts === 6 ? read : undefined;
    }, WAIT_MS);
    expect(
      receiver.received.filter((r) => r.path === path).every((r) => r.headers["webhook-id"] === test.event_id),
    ).toBe(true);
    receiver.answer = previous;
  });

  it("answers 404 and 422 for unknown and bad delivery requests", async () => {
    const t = await tenant();
    const hook = await endpoint(t, receiver.url("/nothing"), ["lead.created"]);
    expect((await t.owner.get(`/api/webhooks/${UNKNOWN_ID}/deliveries`)).status).toBe(404);
    expect((await t.owner.get(`/api/webhooks/${hook.id}/deliveries/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await t.owner.post(`/api/webhooks/${hook.id}/deliveries/${UNKNOWN_ID}/resend`, {})).status).toBe(404);
    expect422(await t.owner.get(`/api/webhooks/${hook.id}/deliveries?status=lost`), [{ loc: ["query", "status"] }]);
    expect422(await t.owner.post(`/api/webhooks/${hook.id}/recover`, {}), [{ loc: ["body", "since"] }]);
    expect422(await t.owner.post(`/api/webhooks/${hook.id}/recover`, { since: "yesterday" }), [
      { loc: ["body", "since"] },
    ]);
    expect((await t.member.post(`/api/webhooks/${hook.id}/test`, {})).status).toBe(403);
  });
});
