import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, eventually, expectStatus } from "@voiceops/platform/testing";
import type { ClaimedCall } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import {
  INTERNAL_API_KEY,
  ManualClock,
  ownDatabase,
  startOutboundSystem,
  type OutboundSystem,
  type OwnDatabase,
} from "./support/outbound-system.js";

// Two whole systems on one PostgreSQL database, as two replicas of every component: two comms
// services run the scheduler side by side and hand calls out side by side (FOR UPDATE SKIP
// LOCKED), while four claimers take calls from both and report results through both gateways.
// No contact is turned into two call requests, no call request is handed out twice, and a
// campaign never has more than max_concurrent_calls in flight.

const MAX_CONCURRENT = 8;
const CONTACTS = 60;
const QUICK_CALLS = 20;
const clock = new ManualClock("2026-03-11T15:00:00Z"); // Wednesday 11:00 EDT
let database: OwnDatabase;
const replicas: OutboundSystem[] = [];

describe.skipIf(!process.env.DATABASE_URL)("two comms replicas on one database", () => {
  beforeAll(async () => {
    database = await ownDatabase();
    // One after the other: the second finds the schema migrated.
    replicas.push(await startOutboundSystem(clock, database));
    replicas.push(await startOutboundSystem(clock, database));
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await database?.drop();
  });

  it("never makes the same call twice, and keeps to max_concurrent_calls", async () => {
    const [a, b] = replicas as [OutboundSystem, OutboundSystem];
    const tenant = await a.tenant({ timezone: "America/New_York" });
    const owners = [tenant.owner, new ApiClient(b.system.url, tenant.owner.apiKey)];
    const phones = Array.from({ length: CONTACTS }, (_, i) => `+1555080${String(i).padStart(4, "0")}`);
    const campaign = expectStatus(
      await owners[0]!.post("/api/campaigns", { name: "Replicas", max_concurrent_calls: MAX_CONCURRENT }),
      201,
    );
    expectStatus(
      await owners[1]!.post(`/api/campaigns/${campaign.id}/contacts/upload`, {
        contacts: phones.map((phone_number) => ({ phone_number })),
      }),
      200,
    );
    const quick: string[] = [];
    for (let i = 0; i < QUICK_CALLS; i++) {
      quick.push(
        expectStatus(
          await owners[i % 2]!.post("/api/campaigns/quick-call", {
            phone_number: `+1555081${String(i).padStart(4, "0")}`,
          }),
          202,
        ).id,
      );
    }
    expectStatus(await owners[1]!.post(`/api/campaigns/${campaign.id}/start`), 200);

    const claims: ClaimedCall[] = [];
    let held = 0;
    let peakHeldForCampaign = 0;
    let campaignHeld = 0;
    let peakServer = 0;
    let done = false;
    const claimer = async (replica: OutboundSystem, index: number) => {
      while (!done) {
        const { calls } = await replica.calls.claimCalls(
          { maxCalls: 5, runtimeId: `claimer-${index}` },
          replica.as(tenant.orgId),
        );
        for (const call of calls) {
          claims.push(call);
          held++;
          if (call.callRequest?.campaignId) peakHeldForCampaign = Math.max(peakHeldForCampaign, ++campaignHeld);
        }
        await Promise.all(
          calls.map(async (call, n) => {
            // From here on the service may free the call's slot (when it records the result,
            // which this claimer sees only later): a call counts as held until its result is
            // sent, so the count never includes a slot the service may already have given out.
            if (call.callRequest?.campaignId) campaignHeld--;
            const res = await owners[(index + n) % 2]!.request("POST", "/api/activities", {
              headers: { "x-internal-key": INTERNAL_API_KEY },
              body: {
                activity_type: "CALL_ENDED",
                session_id: `replica-${call.callRequest?.id}`,
                metadata: {
                  call_request_id: call.callRequest?.id,
                  disposition: "appointment_booked",
                  direction: "outbound",
                },
              },
            });
            expect(res.status).toBe(201);
            // The slot is free once the service has recorded the result, not when it is sent.
            await eventually(
              async () => {
                const request = expectStatus(
                  await owners[n % 2]!.get(`/api/call-requests/${call.callRequest?.id}`),
                  200,
                );
                return request.status === "completed" ? true : undefined;
              },
              60_000,
              50,
            );
            held--;
          }),
        );
        if (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const running = [claimer(a, 0), claimer(b, 1), claimer(a, 2), claimer(b, 3)];
    await eventually(
      async () => {
        const current = expectStatus(await owners[0]!.get(`/api/campaigns/${campaign.id}`), 200);
        peakServer = Math.max(peakServer, current.counts.queued + current.counts.dialing);
        const quickDone = (
          await Promise.all(
            quick.map(async (id) => expectStatus(await owners[1]!.get(`/api/call-requests/${id}`), 200).status),
          )
        ).every((s) => s === "completed");
        return current.status === "completed" && quickDone ? true : undefined;
      },
      180_000,
      100,
    );
    done = true;
    await Promise.all(running);

    const claimedIds = claims.map((c) => c.callRequest?.id);
    expect(claims).toHaveLength(CONTACTS + QUICK_CALLS);
    expect(new Set(claimedIds).size).toBe(CONTACTS + QUICK_CALLS);
    expect(new Set(claims.map((c) => c.callRequest?.phoneNumber)).size).toBe(CONTACTS + QUICK_CALLS);
    expect(claims.every((c) => c.attempt === 1)).toBe(true);
    expect(held).toBe(0);
    expect(peakHeldForCampaign).toBeLessThanOrEqual(MAX_CONCURRENT);
    expect(peakServer).toBeLessThanOrEqual(MAX_CONCURRENT);
    const requests = expectStatus(
      await owners[0]!.get(`/api/call-requests?campaign_id=${campaign.id}&page_size=1`),
      200,
    );
    expect(requests.total).toBe(CONTACTS);
    const final = expectStatus(await owners[1]!.get(`/api/campaigns/${campaign.id}`), 200);
    expect(final.counts).toMatchObject({ completed: CONTACTS, total: CONTACTS });
    const contacts = expectStatus(await owners[0]!.get(`/api/campaigns/${campaign.id}/contacts?page_size=100`), 200)
      .items as { attempts: number }[];
    expect(contacts.every((c) => c.attempts === 1)).toBe(true);
    process.stdout.write(
      `replicas: ${claims.length} calls through 2 comms replicas and 4 claimers, each once; peak ${peakHeldForCampaign} campaign calls held (limit ${MAX_CONCURRENT})\n`,
    );
  }, 900_000);
});
