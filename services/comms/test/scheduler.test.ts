import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { newId, type Subscription } from "@voiceops/platform";
import { eventually, expectStatus, type Tenant } from "@voiceops/platform/testing";
import { OutboundCallRequestedSchema } from "@voiceops/proto/voiceops/comms/v1/outbound_events_pb";
import { decodeEvent } from "@voiceops/platform";
import type { ClaimedCall } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import {
  INTERNAL_API_KEY,
  ManualClock,
  ownDatabase,
  startOutboundSystem,
  type OutboundSystem,
  type OwnDatabase,
} from "./support/outbound-system.js";

// The scheduler and the hand-off to the voice runtime on a manual clock: calling windows in the
// organization's zone across both daylight-saving changes of 2026 in New York, leases running
// out, retries after retry_delay_minutes, the do-not-call list checked again at call time, and
// results reported as CALL_ENDED activities. The test plays the voice runtime: it claims calls
// over gRPC and reports them over REST with x-internal-key.

const ZONE = "America/New_York";
const clock = new ManualClock("2026-03-07T23:00:00Z");
let database: OwnDatabase;
let sys: OutboundSystem;
let observer: Subscription;
const requestedEvents: string[] = [];

beforeAll(async () => {
  database = await ownDatabase();
  sys = await startOutboundSystem(clock, database);
  observer = await sys.system.bus.subscribe({
    durable: `outbound-test-${newId()}`,
    subject: "comms.outbound_call.requested",
    startAt: "new",
    expireAfterIdleMs: 60_000,
    handler: async (message) => {
      const event = decodeEvent(message.data, OutboundCallRequestedSchema);
      requestedEvents.push(event.payload.callRequest?.id ?? "");
    },
  });
});

afterAll(async () => {
  await observer?.stop();
  await sys?.stop();
  await database?.drop();
});

interface CampaignContact {
  id: string;
  phone_number: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  disposition: string | null;
  last_session_id: string | null;
}

const iso = (text: string) => new Date(text).toISOString();

async function claim(t: Tenant, max = 10): Promise<ClaimedCall[]> {
  return (await sys.calls.claimCalls({ maxCalls: max }, sys.as(t.orgId))).calls;
}

/**
 * Claims until `count` calls are held, as a runtime polls: a claim skips rows a scheduler pass
 * holds locked at that moment (FOR UPDATE SKIP LOCKED), so one claim may come back short.
 */
async function claimCount(t: Tenant, count: number): Promise<ClaimedCall[]> {
  const held: ClaimedCall[] = [];
  await eventually(
    async () => {
      held.push(...(await claim(t, count - held.length)));
      return held.length >= count ? true : undefined;
    },
    30_000,
    50,
  );
  return held.sort((a, b) => (a.callRequest?.phoneNumber ?? "").localeCompare(b.callRequest?.phoneNumber ?? ""));
}

/** Reports a call's end as the voice runtime does: a CALL_ENDED activity with x-internal-key. */
async function report(t: Tenant, call: ClaimedCall, disposition: string): Promise<void> {
  const request = call.callRequest;
  const res = await t.owner.request("POST", "/api/activities", {
    headers: { "x-internal-key": INTERNAL_API_KEY },
    body: {
      activity_type: "CALL_ENDED",
      session_id: `session-${request?.id}-${call.attempt}`,
      occurred_at: clock.now().toISOString(),
      metadata: {
        call_request_id: request?.id,
        disposition,
        direction: "outbound",
        to_number: request?.phoneNumber,
        duration_seconds: 42,
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function contacts(t: Tenant, campaignId: string): Promise<CampaignContact[]> {
  return expectStatus(await t.owner.get(`/api/campaigns/${campaignId}/contacts?page_size=100`), 200).items;
}

async function campaign(t: Tenant, id: string) {
  return expectStatus(await t.owner.get(`/api/campaigns/${id}`), 200);
}

async function callRequest(t: Tenant, id: string) {
  return expectStatus(await t.owner.get(`/api/call-requests/${id}`), 200);
}

/** Waits until the check passes (the scheduler runs every 100 ms of real time). */
function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  return eventually(async () => (await check()) || undefined, 30_000, 50) as Promise<T>;
}

async function newCampaign(t: Tenant, body: Record<string, unknown>, phones: string[]) {
  const created = expectStatus(await t.owner.post("/api/campaigns", { name: "Test campaign", ...body }), 201);
  const added = expectStatus(
    await t.owner.post(`/api/campaigns/${created.id}/contacts/upload`, {
      contacts: phones.map((phone_number) => ({ phone_number })),
    }),
    200,
  );
  return { id: created.id as string, added };
}

describe("one-off calls and daylight-saving time", () => {
  it("holds quick calls to 08:00..21:00 local time across the spring change, and returns a lapsed lease to the queue", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-07T23:00:00Z"); // Saturday 18:00 EST
    const first = expectStatus(await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400001" }), 202);
    expect(first.scheduled_for).toBe(iso("2026-03-07T23:00:00Z"));
    await until(() => Promise.resolve(requestedEvents.includes(first.id)));
    const claimed = await claimCount(t, 1);
    expect(claimed.map((c) => c.callRequest?.id)).toEqual([first.id]);
    expect(claimed[0]).toMatchObject({ attempt: 1 });
    expect(timestampDate(claimed[0]?.leaseExpiresAt ?? ({ seconds: 0n, nanos: 0 } as never)).toISOString()).toBe(
      iso("2026-03-07T23:10:00Z"),
    );
    expect(await callRequest(t, first.id)).toMatchObject({
      status: "dialing",
      attempts: 1,
      dialed_at: iso("2026-03-07T23:00:00Z"),
    });

    clock.set("2026-03-08T02:30:00Z"); // Saturday 21:30 EST: closed; the lease has run out
    const second = expectStatus(await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400002" }), 202);
    // Sunday 08:00 is EDT (UTC-4) after the change at 02:00: 12:00Z, not 13:00Z.
    expect(second.scheduled_for).toBe(iso("2026-03-08T12:00:00Z"));
    await until(async () => {
      const back = await callRequest(t, first.id);
      return back.status === "queued" && back.scheduled_for === iso("2026-03-08T12:00:00Z");
    });
    clock.set("2026-03-08T11:59:00Z");
    expect(await claim(t)).toEqual([]);
    clock.set("2026-03-08T12:00:00Z");
    const morning = await claimCount(t, 2);
    expect(morning.map((c) => [c.callRequest?.id, c.attempt]).sort()).toEqual(
      [
        [first.id, 2],
        [second.id, 1],
      ].sort(),
    );
  });

  it("queues a call asked for after 21:00 EDT on the night of the autumn change for 08:00 EST", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-11-01T02:30:00Z"); // Saturday 22:30 EDT
    const request = expectStatus(
      await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400003" }),
      202,
    );
    expect(request.scheduled_for).toBe(iso("2026-11-01T13:00:00Z"));
    clock.set("2026-11-01T07:59:00Z");
    expect(await claim(t)).toEqual([]);
  });

  it("checks the do-not-call list again when the call is due: a number listed meanwhile is blocked, never claimed", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-10T03:00:00Z"); // Monday 23:00 EDT
    const request = expectStatus(
      await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400004" }),
      202,
    );
    expectStatus(await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550400004"] }), 200);
    clock.set("2026-03-10T12:00:00Z");
    expect(await claim(t)).toEqual([]);
    await until(async () => (await callRequest(t, request.id)).status === "blocked");
  });

  it("lists the number of a do_not_call report for a request never claimed or already ended, which is then never called", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    const dncEntry = async (phone: string) =>
      expectStatus(await t.owner.get(`/api/dnc/check/${encodeURIComponent(phone)}`), 200);
    clock.set("2026-03-11T03:00:00Z"); // Tuesday 23:00 EDT: queued for 08:00
    const queued = expectStatus(await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400005" }), 202);
    expect(queued).toMatchObject({ status: "queued", attempts: 0 });
    expect((await dncEntry("+15550400005")).blocked).toBe(false);
    await report(
      t,
      { callRequest: { id: queued.id, phoneNumber: queued.phone_number }, attempt: 0 } as ClaimedCall,
      "do_not_call",
    );
    const listed = await until(async () => {
      const check = await dncEntry("+15550400005");
      return check.blocked ? check : undefined;
    });
    expect(listed.entry).toMatchObject({
      phone_number: "+15550400005",
      source: "disposition",
      reason: "Asked not to be called again",
      expires_at: null,
    });
    // The request's own bookkeeping stays; when it is due, the list blocks it.
    expect(await callRequest(t, queued.id)).toMatchObject({ status: "queued", attempts: 0, disposition: null });
    clock.set("2026-03-11T12:00:00Z");
    expect(await claim(t)).toEqual([]);
    await until(async () => (await callRequest(t, queued.id)).status === "blocked");

    // A request that already ended with another disposition: a later do_not_call lists the number too.
    const ended = expectStatus(await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400006" }), 202);
    const [call] = await claimCount(t, 1);
    expect(call?.callRequest?.id).toBe(ended.id);
    await report(t, call as ClaimedCall, "wrong_number");
    await until(async () => (await callRequest(t, ended.id)).status === "completed");
    expect((await dncEntry("+15550400006")).blocked).toBe(false);
    await report(t, call as ClaimedCall, "do_not_call");
    await until(async () => (await dncEntry("+15550400006")).blocked);
    expect(await callRequest(t, ended.id)).toMatchObject({ status: "completed", disposition: "wrong_number" });
    expect((await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550400006" })).status).toBe(409);
  });
});

describe("a campaign on the clock", () => {
  it("stops at the window's end, puts lapsed calls off to the next opening (Monday 09:00 EDT after the change), retries and completes", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-07T00:50:00Z"); // Friday 19:50 EST
    const { id } = await newCampaign(t, { max_concurrent_calls: 2, max_attempts: 3, retry_delay_minutes: 30 }, [
      "+15550410001",
      "+15550410002",
      "+15550410003",
    ]);
    expectStatus(await t.owner.post(`/api/campaigns/${id}/start`), 200);
    await until(async () => (await campaign(t, id)).counts.queued === 2);
    expect((await campaign(t, id)).counts).toMatchObject({ pending: 1, queued: 2, total: 3 });
    const first = await claimCount(t, 2);
    expect(first.map((c) => c.callRequest?.phoneNumber)).toEqual(["+15550410001", "+15550410002"]);
    expect(first.every((c) => c.attempt === 1 && c.callRequest?.campaignId === id)).toBe(true);
    expect(await claim(t)).toEqual([]);

    clock.set("2026-03-07T01:05:00Z"); // Friday 20:05 EST: closed, leases lapsed at 20:00
    await until(async () => {
      const list = await contacts(t, id);
      return (
        list.filter((c) => c.status === "queued" && c.next_attempt_at === iso("2026-03-07T14:00:00Z")).length === 2 &&
        list
      );
    });
    expect((await contacts(t, id))[2]).toMatchObject({ status: "pending", attempts: 0 });

    clock.set("2026-03-07T14:00:00Z"); // Saturday 09:00 EST
    const saturday = await claimCount(t, 2);
    expect(saturday.map((c) => c.attempt)).toEqual([2, 2]);

    clock.set("2026-03-08T01:30:00Z"); // Saturday 20:30 EST: leases lapsed again; Sunday is not a calling day
    // Monday 09:00 is EDT: 13:00Z.
    await until(
      async () =>
        (await contacts(t, id)).filter(
          (c) => c.status === "queued" && c.next_attempt_at === iso("2026-03-09T13:00:00Z"),
        ).length === 2,
    );
    clock.set("2026-03-09T12:59:00Z");
    expect(await claim(t)).toEqual([]);
    clock.set("2026-03-09T13:00:00Z");
    const monday = await claimCount(t, 2);
    expect(monday.map((c) => c.attempt)).toEqual([3, 3]);
    const [booked, unanswered] = monday as [ClaimedCall, ClaimedCall];
    await report(t, booked, "appointment_booked");
    await report(t, unanswered, "no_answer");
    // The third contact gets a slot once results are in.
    await until(async () => (await campaign(t, id)).counts.queued === 1);
    const third = await claimCount(t, 1);
    expect(third.map((c) => [c.callRequest?.phoneNumber, c.attempt])).toEqual([["+15550410003", 1]]);
    await report(t, third[0] as ClaimedCall, "do_not_call");

    const done = await until(async () => {
      const c = await campaign(t, id);
      return c.status === "completed" && c;
    });
    expect(done.completed_at).toBe(iso("2026-03-09T13:00:00Z"));
    expect(done.counts).toMatchObject({ completed: 2, failed: 1, pending: 0, queued: 0, dialing: 0, total: 3 });
    const final = await contacts(t, id);
    expect(final.map((c) => [c.phone_number, c.status, c.attempts, c.disposition])).toEqual([
      ["+15550410001", "completed", 3, "appointment_booked"],
      ["+15550410002", "failed", 3, "no_answer"],
      ["+15550410003", "completed", 1, "do_not_call"],
    ]);
    expect(final[0]?.last_session_id).toBe(`session-${booked.callRequest?.id}-3`);
    expect(final[0]?.last_attempt_at).toBe(iso("2026-03-09T13:00:00Z"));
    const dnc = expectStatus(await t.owner.get("/api/dnc/check/+15550410003"), 200);
    expect(dnc).toMatchObject({ blocked: true, entry: { source: "disposition" } });
    const request = await callRequest(t, booked.callRequest?.id ?? "");
    expect(request).toMatchObject({
      status: "completed",
      disposition: "appointment_booked",
      attempts: 3,
      session_id: `session-${booked.callRequest?.id}-3`,
    });
    expect((await callRequest(t, unanswered.callRequest?.id ?? "")).status).toBe("completed");
  });

  it("retries a busy contact after retry_delay_minutes and fails it at max_attempts", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-11T15:00:00Z"); // Wednesday 11:00 EDT
    const { id } = await newCampaign(t, { max_attempts: 2, retry_delay_minutes: 30 }, ["+15550420001"]);
    expectStatus(await t.owner.post(`/api/campaigns/${id}/start`), 200);
    const first = await claimCount(t, 1);
    await report(t, first[0] as ClaimedCall, "busy");
    const waiting = await until(async () => {
      const [c] = await contacts(t, id);
      return c?.status === "pending" && c;
    });
    expect(waiting).toMatchObject({ attempts: 1, disposition: "busy", next_attempt_at: iso("2026-03-11T15:30:00Z") });
    expect(await claim(t)).toEqual([]);
    clock.set("2026-03-11T15:29:00Z");
    expect(await claim(t)).toEqual([]);
    clock.set("2026-03-11T15:30:00Z");
    const second = await claimCount(t, 1);
    expect(second[0]?.attempt).toBe(2);
    expect(second[0]?.callRequest?.id).not.toBe(first[0]?.callRequest?.id);
    await report(t, second[0] as ClaimedCall, "voicemail");
    await until(async () => (await campaign(t, id)).status === "completed");
    expect(await contacts(t, id)).toMatchObject([{ status: "failed", attempts: 2, disposition: "voicemail" }]);
    const requests = expectStatus(await t.owner.get(`/api/call-requests?campaign_id=${id}`), 200);
    expect(requests.total).toBe(2);
  });

  it("skips a contact whose number joined the do-not-call list after the upload, and never calls it", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-11T16:00:00Z");
    const { id } = await newCampaign(t, {}, ["+15550430001", "+15550430002"]);
    expectStatus(await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550430002"] }), 200);
    expectStatus(await t.owner.post(`/api/campaigns/${id}/start`), 200);
    const calls = await claimCount(t, 1);
    expect(calls.map((c) => c.callRequest?.phoneNumber)).toEqual(["+15550430001"]);
    await report(t, calls[0] as ClaimedCall, "not_interested");
    await until(async () => (await campaign(t, id)).status === "completed");
    expect((await contacts(t, id)).map((c) => [c.phone_number, c.status, c.attempts])).toEqual([
      ["+15550430001", "completed", 1],
      ["+15550430002", "skipped_dnc", 0],
    ]);
    expect(expectStatus(await t.owner.get(`/api/call-requests?campaign_id=${id}`), 200).total).toBe(1);
  });

  it("on pause withdraws queued calls, lets dialing ones finish, and resumes", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-11T17:00:00Z");
    const { id } = await newCampaign(t, { max_concurrent_calls: 2 }, ["+15550440001", "+15550440002", "+15550440003"]);
    expectStatus(await t.owner.post(`/api/campaigns/${id}/start`), 200);
    await until(async () => (await campaign(t, id)).counts.queued === 2);
    const [dialing] = await claimCount(t, 1);
    const paused = expectStatus(await t.owner.post(`/api/campaigns/${id}/pause`), 200);
    expect(paused.counts).toMatchObject({ dialing: 1, queued: 0, pending: 2 });
    expect(await claim(t)).toEqual([]);
    await report(t, dialing as ClaimedCall, "transferred");
    await until(async () => (await campaign(t, id)).counts.completed === 1);
    expect((await campaign(t, id)).status).toBe("paused");
    expectStatus(await t.owner.post(`/api/campaigns/${id}/start`), 200);
    await until(async () => (await campaign(t, id)).counts.queued === 2);
    const cancelled = expectStatus(await t.owner.post(`/api/campaigns/${id}/cancel`), 200);
    expect(cancelled.counts).toMatchObject({ completed: 1, cancelled: 2, queued: 0 });
    expect(await claim(t)).toEqual([]);
    const requests = expectStatus(await t.owner.get(`/api/call-requests?campaign_id=${id}&status=cancelled`), 200);
    expect(requests.total).toBe(3);
  });
});

describe("OutboundCalls over gRPC", () => {
  it("claims only the caller's organization's calls, renews a lease and refuses other renewals", async () => {
    const [t, other] = await Promise.all([sys.tenant({ timezone: ZONE }), sys.tenant({ timezone: ZONE })]);
    clock.set("2026-03-12T15:00:00Z");
    const request = expectStatus(
      await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550450001" }),
      202,
    );
    expect(await claim(other)).toEqual([]);
    const [call] = await claimCount(t, 1);
    expect(call?.callRequest?.id).toBe(request.id);
    clock.set("2026-03-12T15:08:00Z");
    const renewed = await sys.calls.renewCallLease({ callRequestId: request.id }, sys.as(t.orgId));
    expect(timestampDate(renewed.leaseExpiresAt ?? ({} as never)).toISOString()).toBe(iso("2026-03-12T15:18:00Z"));
    await expect(sys.calls.renewCallLease({ callRequestId: request.id }, sys.as(other.orgId))).rejects.toMatchObject({
      code: 5,
    });
    await report(t, call as ClaimedCall, "callback_requested");
    await until(async () => (await callRequest(t, request.id)).status === "completed");
    await expect(sys.calls.renewCallLease({ callRequestId: request.id }, sys.as(t.orgId))).rejects.toMatchObject({
      code: 9,
    });
    await expect(sys.calls.claimCalls({ maxCalls: 51 }, sys.as(t.orgId))).rejects.toMatchObject({ code: 3 });
    await expect(sys.calls.claimCalls({ maxCalls: 1 }, { headers: { "x-org-id": t.orgId } })).rejects.toMatchObject({
      code: 16,
    });
  });

  it("ignores a second report of the same call and a report for an unknown request", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    clock.set("2026-03-12T16:00:00Z");
    const request = expectStatus(
      await t.owner.post("/api/campaigns/quick-call", { phone_number: "+15550460001" }),
      202,
    );
    const [call] = await claimCount(t, 1);
    await report(t, call as ClaimedCall, "wrong_number");
    await until(async () => (await callRequest(t, request.id)).status === "completed");
    await report(t, call as ClaimedCall, "failed");
    const unknown = {
      ...call,
      callRequest: { ...call?.callRequest, id: "00000000-0000-4000-8000-000000000000" },
    } as ClaimedCall;
    await report(t, unknown, "busy");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await callRequest(t, request.id)).toMatchObject({ status: "completed", disposition: "wrong_number" });
  });
});
