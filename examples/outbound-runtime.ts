// An example voice runtime for outbound calls. It claims due calls from the comms service over
// gRPC (OutboundCallsService.ClaimCalls, with the generated client), "makes" each call, and
// reports how it ended over REST as a CALL_ENDED activity sent with x-internal-key. A real
// runtime dials through its telephony provider where this one simulates: the disposition of
// each attempt comes from the call's `simulate` variable (a CSV column of the campaign), e.g.
// "busy,no_answer,appointment_booked" (the last entry repeats); "silent" makes no report at all,
// so the lease runs out and the call returns to the queue. Without it, calls are answered and
// end with appointment_booked.
//
//   COMMS_SERVICE_ADDR=http://127.0.0.1:50064 INTERNAL_TOKEN=… ORG_ID=… \
//   API_URL=http://127.0.0.1:8080 API_KEY=vo_… INTERNAL_API_KEY=… npx tsx examples/outbound-runtime.ts
//
// Optional: CONCURRENCY (calls held at once, default 5), POLL_MS (wait when nothing is due,
// default 500), CALL_MS (simulated call length, default 200), RUNTIME_ID. It prints one JSON line
// per claim and report, and a summary when it stops on SIGTERM or SIGINT (after the calls it
// holds have ended).

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { OutboundCallsService, type ClaimedCall } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined || value === "") {
    process.stderr.write(`missing setting ${name}\n`);
    process.exit(2);
  }
  return value;
}

const config = {
  commsAddr: setting("COMMS_SERVICE_ADDR", "http://127.0.0.1:50064"),
  internalToken: setting("INTERNAL_TOKEN"),
  orgId: setting("ORG_ID"),
  apiUrl: setting("API_URL", "http://127.0.0.1:8080"),
  apiKey: setting("API_KEY"),
  internalApiKey: setting("INTERNAL_API_KEY"),
  concurrency: Number(setting("CONCURRENCY", "5")),
  pollMs: Number(setting("POLL_MS", "500")),
  callMs: Number(setting("CALL_MS", "200")),
  runtimeId: setting("RUNTIME_ID", `example-runtime-${process.pid}`),
};

/** The metadata every call to a service carries: the internal token and the organization. */
const callOptions = {
  headers: { "x-internal-token": config.internalToken, "x-org-id": config.orgId, "x-role": "member" },
};
const calls = createClient(OutboundCallsService, createGrpcTransport({ baseUrl: config.commsAddr }));

const stats = { claimed: 0, reported: 0, silent: 0, peakInFlight: 0, failedReports: 0 };
let inFlight = 0;
let stopping = false;

const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The disposition this attempt ends with, from the call's `simulate` variable. */
function simulatedOutcome(call: ClaimedCall): string {
  const plan = String(call.callRequest?.variables?.simulate ?? "appointment_booked")
    .split(/[,;|]/)
    .map((step) => step.trim())
    .filter(Boolean);
  return plan[Math.min(call.attempt, plan.length) - 1] ?? "appointment_booked";
}

/** Reports the call's end as a CALL_ENDED activity; retried on transport errors and 5xx. */
async function report(call: ClaimedCall, disposition: string, startedAt: Date): Promise<void> {
  const request = call.callRequest;
  if (!request) return;
  const durationSeconds = Math.round(config.callMs / 1000) + 30;
  const body: Record<string, unknown> = {
    activity_type: "CALL_ENDED",
    session_id: `${config.runtimeId}-${request.id}-${call.attempt}`,
    contact_id: request.contactId,
    description: `Outbound call ended: ${disposition}`,
    // The service's clock at claim time, so a back-dated call lands in the window it was made in.
    occurred_at: new Date(startedAt.getTime() + durationSeconds * 1000).toISOString(),
    metadata: {
      call_request_id: request.id,
      disposition,
      outcome: disposition,
      direction: "outbound",
      channel: "phone",
      to_number: request.phoneNumber,
      start_time: startedAt.toISOString(),
      duration_seconds: durationSeconds,
      ended_reason: "simulated",
      campaign_id: request.campaignId ?? null,
      attempt: call.attempt,
    },
  };
  for (let attempt = 1; attempt <= 8; attempt++) {
    try {
      const res = await fetch(`${config.apiUrl}/api/activities`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": config.apiKey,
          "x-internal-key": config.internalApiKey,
        },
        body: JSON.stringify(body),
      });
      if (res.status === 201) return;
      const answer = (await res.json().catch(() => ({}))) as { detail?: unknown };
      // A contact id of an uploaded row that names no CRM contact: report the call without it.
      if (res.status === 422 && JSON.stringify(answer.detail ?? "").includes("contact_id") && body.contact_id) {
        delete body.contact_id;
        continue;
      }
      if (res.status < 500 && res.status !== 429)
        throw new Error(`report refused: ${res.status} ${JSON.stringify(answer)}`);
    } catch (error) {
      if (attempt === 8 || (error instanceof Error && error.message.startsWith("report refused"))) throw error;
    }
    await sleep(200 * attempt);
  }
}

async function handle(call: ClaimedCall, claimedAt: Date): Promise<void> {
  const disposition = simulatedOutcome(call);
  try {
    await sleep(config.callMs);
    if (disposition === "silent") {
      stats.silent++;
      print({ event: "silent", call_request_id: call.callRequest?.id, attempt: call.attempt });
      return;
    }
    await report(call, disposition, claimedAt);
    stats.reported++;
    print({ event: "reported", call_request_id: call.callRequest?.id, disposition, attempt: call.attempt });
  } catch (error) {
    stats.failedReports++;
    print({ event: "report_failed", call_request_id: call.callRequest?.id, error: String(error) });
  } finally {
    inFlight--;
  }
}

async function main(): Promise<void> {
  print({ event: "started", runtime_id: config.runtimeId, concurrency: config.concurrency });
  while (!stopping) {
    const room = config.concurrency - inFlight;
    if (room <= 0) {
      await sleep(20);
      continue;
    }
    let claimed: ClaimedCall[] = [];
    let claimedAt = new Date();
    try {
      const answer = await calls.claimCalls({ maxCalls: room, runtimeId: config.runtimeId }, callOptions);
      claimed = answer.calls;
      if (answer.claimedAt) claimedAt = timestampDate(answer.claimedAt);
    } catch (error) {
      print({ event: "claim_failed", error: String(error) });
      await sleep(config.pollMs);
      continue;
    }
    for (const call of claimed) {
      inFlight++;
      stats.claimed++;
      stats.peakInFlight = Math.max(stats.peakInFlight, inFlight);
      print({
        event: "claimed",
        call_request_id: call.callRequest?.id,
        phone_number: call.callRequest?.phoneNumber,
        campaign_id: call.callRequest?.campaignId ?? null,
        attempt: call.attempt,
        claimed_at: claimedAt.toISOString(),
        timezone: call.callRequest?.timezone,
        in_flight: inFlight,
      });
      void handle(call, claimedAt);
    }
    if (claimed.length === 0) await sleep(config.pollMs);
  }
  while (inFlight > 0) await sleep(20);
  print({ event: "summary", ...stats });
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    stopping = true;
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
