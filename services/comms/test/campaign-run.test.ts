import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DateTime } from "luxon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStatus, type Tenant } from "@voiceops/platform/testing";
import {
  INTERNAL_API_KEY,
  ManualClock,
  ownDatabase,
  startOutboundSystem,
  type OutboundSystem,
  type OwnDatabase,
} from "./support/outbound-system.js";

// A whole campaign of 50 contacts run to completion by the example voice runtime
// (examples/outbound-runtime.ts, a separate process that claims calls over gRPC and reports
// them over REST with x-internal-key), on a manual clock the test moves forward whenever the
// system is idle: to the next retry, the next window opening or a lapsed lease. The run starts
// on a Saturday evening in New York, so retries cross the window's end, a Sunday without calls
// and the change to daylight-saving time.

const ZONE = "America/New_York";
const MAX_CONCURRENT = 3;
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const clock = new ManualClock("2026-03-07T23:30:00Z"); // Saturday 18:30 EST

interface Row {
  phone: string;
  simulate: string;
}

/** 50 contacts: what each one's calls end with, attempt by attempt (the runtime's script). */
function plan(): Row[] {
  const finals = [
    "appointment_booked",
    "not_interested",
    "callback_requested",
    "transferred",
    "service_request_created",
    "wrong_number",
  ];
  const rows: Row[] = [];
  const add = (simulate: string) =>
    rows.push({ phone: `+1555070${String(rows.length + 1).padStart(4, "0")}`, simulate });
  for (let i = 0; i < 30; i++) add(finals[i % finals.length] as string);
  for (let i = 0; i < 8; i++) add("busy,appointment_booked");
  for (let i = 0; i < 5; i++) add("no_answer");
  for (let i = 0; i < 3; i++) add("voicemail,no_answer,service_request_created");
  for (let i = 0; i < 2; i++) add("do_not_call");
  add("silent,appointment_booked");
  add("appointment_booked"); // on the do-not-call list before the campaign starts
  return rows;
}

/** Claims the plan implies: one per attempt until a final disposition or max_attempts (3). */
const EXPECTED_CALLS = 30 + 8 * 2 + 5 * 3 + 3 * 3 + 2 + 2;

interface RuntimeLine {
  event: string;
  call_request_id?: string;
  phone_number?: string;
  attempt?: number;
  claimed_at?: string;
  in_flight?: number;
  disposition?: string;
  [key: string]: unknown;
}

let database: OwnDatabase;
let sys: OutboundSystem;
let runtime: ChildProcess | undefined;
const lines: RuntimeLine[] = [];

beforeAll(async () => {
  database = await ownDatabase();
  sys = await startOutboundSystem(clock, database);
});

afterAll(async () => {
  if (runtime && runtime.exitCode === null) runtime.kill("SIGKILL");
  await sys?.stop();
  await database?.drop();
});

function startRuntime(t: Tenant): ChildProcess {
  const comms = sys.system.services.find((s) => s.name === "comms");
  const child = spawn(`${ROOT}node_modules/.bin/tsx`, ["examples/outbound-runtime.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      COMMS_SERVICE_ADDR: comms?.url,
      INTERNAL_TOKEN: sys.internalToken,
      ORG_ID: t.orgId,
      API_URL: sys.system.url,
      API_KEY: t.owner.apiKey,
      INTERNAL_API_KEY,
      CONCURRENCY: "10",
      POLL_MS: "100",
      CALL_MS: "30",
      RUNTIME_ID: "e2e",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buffered = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) lines.push(JSON.parse(line) as RuntimeLine);
      newline = buffered.indexOf("\n");
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(`[runtime] ${chunk.toString("utf8")}`));
  return child;
}

function stopRuntime(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a 50-contact campaign run by the example voice runtime", () => {
  it("completes with retries, never calls the do-not-call number, calls only inside the window and never more than max_concurrent_calls at once", async () => {
    const t = await sys.tenant({ timezone: ZONE });
    const rows = plan();
    const listed = rows[rows.length - 1] as Row;
    expectStatus(await t.owner.post("/api/dnc/bulk", { phone_numbers: [listed.phone], reason: "Asked before" }), 200);
    const created = expectStatus(
      await t.owner.post("/api/campaigns", {
        name: "Spring tune-up reminders",
        agent_prompt: "Offer a spring tune-up.",
        max_concurrent_calls: MAX_CONCURRENT,
        max_attempts: 3,
        retry_delay_minutes: 60,
      }),
      201,
    );
    const csv = [
      "phone_number,name,simulate",
      ...rows.map((row, i) => `${row.phone},Customer ${i + 1},"${row.simulate}"`),
    ].join("\n");
    const uploaded = await t.owner.request("POST", `/api/campaigns/${created.id}/contacts/upload`, {
      rawBody: csv,
      headers: { "content-type": "text/csv" },
    });
    expect(expectStatus(uploaded, 200)).toEqual({ imported: 49, duplicates: 0, invalid: [], on_dnc: 1 });

    runtime = startRuntime(t);
    const wallStart = Date.now();
    const simulatedStart = clock.now();
    expectStatus(await t.owner.post(`/api/campaigns/${created.id}/start`), 200);

    let peakServerInFlight = 0;
    let signature = "";
    let changedAt = Date.now();
    let advances = 0;
    type Listed = { status: string; next_attempt_at: string | null };
    const listContacts = async () =>
      expectStatus(await t.owner.get(`/api/campaigns/${created.id}/contacts?page_size=100`), 200).items as Listed[];
    const count = (event: string) => lines.filter((l) => l.event === event).length;
    /** Calls the runtime let lapse on purpose whose lease still holds (they stay dialing until then). */
    const lapsing = () =>
      lines
        .filter((l) => l.event === "silent")
        .filter((l) => {
          const claimed = lines.find(
            (c) => c.event === "claimed" && c.call_request_id === l.call_request_id && c.attempt === l.attempt,
          );
          return claimed && Date.parse(claimed.claimed_at as string) + 10 * 60_000 > clock.now().getTime();
        }).length;
    /**
     * Nothing can happen before the clock moves: the runtime holds no call, nothing is dialing
     * but calls left to lapse, and no contact is due now (a due pending contact only waits when
     * the campaign has no free slot). Moving the clock past a lease while a report is on its way
     * would make the service hand the call out again, as it should, so the test waits for that.
     */
    const idle = (contacts: Listed[]) => {
      const at = clock.now().getTime();
      const due = (c: Listed) => c.next_attempt_at === null || Date.parse(c.next_attempt_at) <= at;
      const inFlight = contacts.filter((c) => c.status === "queued" || c.status === "dialing").length;
      return (
        count("claimed") === count("reported") + count("silent") + count("report_failed") &&
        contacts.filter((c) => c.status === "dialing").length <= lapsing() &&
        !contacts.some((c) => c.status === "queued" && due(c)) &&
        (inFlight >= MAX_CONCURRENT || !contacts.some((c) => c.status === "pending" && due(c)))
      );
    };
    let campaign = expectStatus(await t.owner.get(`/api/campaigns/${created.id}`), 200);
    while (campaign.status !== "completed") {
      if (Date.now() - wallStart > 240_000)
        throw new Error(`campaign did not complete: ${JSON.stringify(campaign.counts)}`);
      peakServerInFlight = Math.max(peakServerInFlight, campaign.counts.queued + campaign.counts.dialing);
      const contacts = await listContacts();
      const now = `${JSON.stringify(campaign.counts)}|${lines.length}`;
      if (now !== signature) {
        signature = now;
        changedAt = Date.now();
      } else if (Date.now() - changedAt > 300 && idle(contacts)) {
        // Move the clock to the next thing that will happen: a retry, an opening, a lapsed lease.
        const at = clock.now().getTime();
        const silent = new Set(
          lines.filter((l) => l.event === "silent").map((l) => `${l.call_request_id}#${l.attempt}`),
        );
        const leases = lines
          .filter((l) => l.event === "claimed" && silent.has(`${l.call_request_id}#${l.attempt}`))
          .map((l) => Date.parse(l.claimed_at as string) + 10 * 60_000);
        const upcoming = [
          ...contacts.map((c) => (c.next_attempt_at ? Date.parse(c.next_attempt_at) : 0)),
          ...leases,
        ].filter((time) => time > at);
        clock.set(new Date(upcoming.length > 0 ? Math.min(...upcoming) : at + 30 * 60_000));
        advances++;
        changedAt = Date.now();
      }
      await sleep(50);
      campaign = expectStatus(await t.owner.get(`/api/campaigns/${created.id}`), 200);
    }
    const wallSeconds = (Date.now() - wallStart) / 1000;
    expect(await stopRuntime(runtime)).toBe(0);

    // The outcome of every contact.
    expect(campaign.counts).toEqual({
      pending: 0,
      queued: 0,
      dialing: 0,
      completed: 44,
      failed: 5,
      skipped_dnc: 1,
      cancelled: 0,
      total: 50,
    });
    const contacts = expectStatus(await t.owner.get(`/api/campaigns/${created.id}/contacts?page_size=100`), 200)
      .items as {
      phone_number: string;
      status: string;
      attempts: number;
      disposition: string | null;
    }[];
    const byPhone = new Map(contacts.map((c) => [c.phone_number, c]));
    expect(byPhone.get(listed.phone)).toMatchObject({ status: "skipped_dnc", attempts: 0 });
    for (const row of rows.slice(30, 38))
      expect(byPhone.get(row.phone)).toMatchObject({
        status: "completed",
        attempts: 2,
        disposition: "appointment_booked",
      });
    for (const row of rows.slice(38, 43))
      expect(byPhone.get(row.phone)).toMatchObject({ status: "failed", attempts: 3, disposition: "no_answer" });
    for (const row of rows.slice(43, 46))
      expect(byPhone.get(row.phone)).toMatchObject({
        status: "completed",
        attempts: 3,
        disposition: "service_request_created",
      });
    expect(byPhone.get((rows[48] as Row).phone)).toMatchObject({
      status: "completed",
      attempts: 2,
      disposition: "appointment_booked",
    });

    // The calls the runtime made.
    const claims = lines.filter((l) => l.event === "claimed");
    const summary = lines.find((l) => l.event === "summary");
    expect(claims).toHaveLength(EXPECTED_CALLS);
    expect(summary).toMatchObject({
      claimed: EXPECTED_CALLS,
      reported: EXPECTED_CALLS - 1,
      silent: 1,
      failedReports: 0,
    });
    expect(claims.filter((c) => c.phone_number === listed.phone)).toEqual([]);
    const perAttempt = new Set(claims.map((c) => `${c.phone_number}#${c.attempt}`));
    expect(perAttempt.size).toBe(EXPECTED_CALLS);
    for (const claim of claims) {
      const local = DateTime.fromISO(claim.claimed_at as string, { zone: ZONE });
      const minutes = local.hour * 60 + local.minute;
      expect(local.weekday, `${claim.claimed_at} is a Sunday`).not.toBe(7);
      expect(minutes >= 9 * 60 && minutes < 20 * 60, `${claim.claimed_at} outside 09:00-20:00 ${ZONE}`).toBe(true);
    }
    // After the window closed on Saturday the retries waited for Monday 09:00, daylight time (13:00Z).
    const monday = claims.filter((c) => (c.claimed_at as string).startsWith("2026-03-09"));
    expect(monday.length).toBeGreaterThan(0);
    expect(monday.map((c) => c.claimed_at).sort()[0]).toBe("2026-03-09T13:00:00.000Z");
    expect(Math.max(...claims.map((c) => c.in_flight ?? 0))).toBeLessThanOrEqual(MAX_CONCURRENT);
    expect(peakServerInFlight).toBeLessThanOrEqual(MAX_CONCURRENT);

    // The do_not_call dispositions listed their numbers.
    const dnc = expectStatus(await t.owner.get("/api/dnc?page_size=100"), 200);
    expect(
      dnc.items
        .filter((e: { source: string }) => e.source === "disposition")
        .map((e: { phone_number: string }) => e.phone_number)
        .sort(),
    ).toEqual(rows.slice(46, 48).map((r) => r.phone));

    const simulatedHours = (Date.parse(campaign.completed_at) - simulatedStart.getTime()) / 3_600_000;
    const retries = EXPECTED_CALLS - (rows.length - 1);
    process.stdout.write(
      `campaign run: ${rows.length} contacts, ${claims.length} calls (${retries} retries, 1 lapsed lease), ` +
        `1 skipped (do-not-call), peak ${Math.max(...claims.map((c) => c.in_flight ?? 0))} calls at once (limit ${MAX_CONCURRENT}); ` +
        `${simulatedHours.toFixed(1)} h of campaign time in ${wallSeconds.toFixed(1)} s (${advances} clock moves)\n`,
    );
  }, 900_000);
});
