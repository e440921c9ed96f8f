import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import {
  AdminClient,
  eventually,
  expectStatus,
  isolatedDatabase,
  newTenant,
  testEnv,
  type Tenant,
} from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";

const databaseUrl = process.env.DATABASE_URL;
const natsUrl = process.env.NATS_URL;
const ROOT = join(import.meta.dirname, "..", "..", "..");
const ROUTES = [
  "/api/statistics/dashboard",
  "/api/statistics/service-requests/by-status",
  "/api/statistics/service-requests/by-priority",
  "/api/statistics/roi?days=30",
  "/api/statistics/metrics/time-series?metric=service_requests&days=7",
  "/api/statistics/upcoming?days=30",
  "/api/statistics/portal-sessions",
  "/api/statistics/activities/by-type?hours_back=24",
];

function runRebuild(
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "services/analytics/src/rebuild-main.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
}

/** Every figure but the moment it was generated. */
async function figures(t: Tenant): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const route of ROUTES) {
    const body = expectStatus(await t.owner.get(route), 200);
    delete body.generated_at;
    out[route] = body;
  }
  return out;
}

// A rebuild replays the JetStream streams, so it needs NATS; this system has a database and a
// NATS namespace of its own, so the replay holds only this test's events.
describe.skipIf(!databaseUrl || !natsUrl)("npm run analytics:rebuild", () => {
  let database: { url: string; drop(): Promise<void> };
  let system: RunningSystem;
  let env: Record<string, string | undefined>;
  let t: Tenant;

  beforeAll(async () => {
    database = await isolatedDatabase(databaseUrl ?? "");
    // testEnv gives the database a NATS namespace of its own; dropping the database deletes its streams.
    env = testEnv({ DATABASE_URL: database.url, EVENT_RETENTION_DAYS: "1" });
    system = await startSystem({ env });
    t = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken), {
      timezone: "America/New_York",
    });
  });

  afterAll(async () => {
    await system?.stop();
    await database?.drop();
  });

  it("rebuilds the read models from the streams, equal to the live figures", async () => {
    const contact = expectStatus(await t.owner.post("/api/contacts", { name: "Rebuilt", status: "customer" }), 201);
    expectStatus(await t.owner.post(`/api/contacts/${contact.id}/portal-token`), 201);
    await t.owner.post("/api/leads", {
      name: "Lead",
      phone_number: "+12125550100",
      estimated_value_cents: 7_500,
      next_step_due_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const request = expectStatus(
      await t.owner.post("/api/service-requests", {
        description: "Boiler",
        priority: "URGENT",
        due_at: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      }),
      201,
    );
    expectStatus(await t.owner.post(`/api/service-requests/${request.id}/emergency?emergency_type=hvac`), 200);
    expectStatus(await t.owner.post(`/api/service-requests/${request.id}/quote?quote_amount_cents=9000`), 200);
    expectStatus(await t.owner.put(`/api/service-requests/${request.id}/quote?status=approved`), 200);
    const closed = expectStatus(await t.owner.post("/api/service-requests", { description: "Done" }), 201);
    expectStatus(await t.owner.put(`/api/service-requests/${closed.id}`, { status: "completed" }), 200);

    expectStatus(
      await t.owner.request("POST", "/api/activities", {
        body: { activity_type: "CALL_ENDED" },
        headers: { "x-internal-key": env.INTERNAL_API_KEY ?? "" },
      }),
      201,
    );
    const technician = expectStatus(
      await t.owner.post("/api/technicians", { name: "Rebuilt tech", is_on_call: true }),
      200,
    );
    expectStatus(
      await t.owner.post("/api/technicians/dispatch", { service_request_id: request.id, technician_id: technician.id }),
      200,
    );

    const live = await eventually(async () => {
      const now = await figures(t);
      const dashboard = now["/api/statistics/dashboard"] as Record<string, number>;
      const roi = now["/api/statistics/roi?days=30"] as Record<string, number>;
      const byStatus = now["/api/statistics/service-requests/by-status"] as {
        counts: Record<string, number>;
        total: number;
      };
      const upcoming = now["/api/statistics/upcoming?days=30"] as Record<string, number>;
      const settled =
        dashboard.customers_total === 1 &&
        dashboard.service_requests_open === 1 &&
        dashboard.calls_today === 1 &&
        dashboard.dispatches_active === 1 &&
        dashboard.technicians_on_call === 1 &&
        byStatus.total === 2 &&
        byStatus.counts.completed === 1 &&
        upcoming.total === 2 &&
        roi.estimated_value_cents === 16_500 &&
        (now["/api/statistics/portal-sessions"] as Record<string, number>).active_portal_tokens === 1;
      // The routes are read one after another: a snapshot counts only when a second read agrees.
      return settled && JSON.stringify(await figures(t)) === JSON.stringify(now) ? now : undefined;
    }, 150_000);

    // Damage the read models, so that only a real rebuild can bring the figures back.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`UPDATE analytics.counters SET value = value + 100 WHERE org_id = $1`, [t.orgId]);
    await client.query(`DELETE FROM analytics.upcoming WHERE org_id = $1`, [t.orgId]);
    await client.end();
    expect(await figures(t)).not.toEqual(live);

    const run = await runRebuild(env);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ generation: 1 });
    let rebuilt: Record<string, unknown> = {};
    await eventually(async () => {
      rebuilt = await figures(t);
      return JSON.stringify(rebuilt) === JSON.stringify(live) ? true : undefined;
    }, 150_000).catch(() => undefined);
    expect(rebuilt).toEqual(live);

    // Events after the rebuild still arrive, once.
    await t.owner.post("/api/contacts", { name: "After" });
    await eventually(
      async () => ((await t.owner.get("/api/statistics/dashboard")).body.contacts_total === 2 ? true : undefined),
      150_000,
    );
  }, 600_000);

  it("says which variable it needs without NATS", async () => {
    const run = await runRebuild({ ...env, NATS_URL: "" });
    expect(run.code).toBe(2);
    expect(run.err.trim()).toBe("invalid configuration: NATS_URL is required: a rebuild replays the NATS streams");
  });
});
