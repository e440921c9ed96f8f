import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdminClient,
  type ApiClient,
  eventually,
  isolatedDatabase,
  newTenant,
  type RunningProcess,
  testEnv,
} from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { contactBurst, contactIds, overlappingAttempts } from "./faults.js";
import { startWebhooksProcess } from "./webhooks-process.js";
import { Receiver } from "./receiver.js";

// Distributed mode, the webhooks service as two processes (replicas) beside the rest of the
// system: one is killed with SIGKILL during a burst of 2,000 events, then both lose their
// database connections during another burst. Afterwards every event has reached the receiver;
// an event arrives twice only when the killed process had sent it, never from two senders at once.

const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
const BURST = 2_000;

describe.skipIf(!distributed)("webhook delivery when a webhooks process dies or loses its database", () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let admin: pg.Client;
  let system: RunningSystem;
  /** A tenant of its own per test, each with one endpoint at /<its name>. */
  const apis = new Map<string, ApiClient>();
  const replicas: RunningProcess[] = [];
  const receiver = new Receiver();
  const env = testEnv();
  const requestsTo = (path: string) => receiver.received.filter((r) => r.path === path);
  /** How many deliveries to the endpoint at the path have succeeded. */
  const succeeded = async (path: string) =>
    (
      await system.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhooks.deliveries d JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id WHERE ep.url = $1 AND d.status = 'succeeded'",
        [receiver.url(path)],
      )
    ).rows[0]?.n;
  const alive = (running: RunningProcess) => running.child.exitCode === null && running.child.signalCode === null;

  beforeAll(async () => {
    database = await isolatedDatabase(process.env.DATABASE_URL ?? "");
    Object.assign(env, testEnv({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: "100000000" }));
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    system = await startSystem({ env });
    await receiver.start();
    for (const name of ["killed", "dropped"]) {
      const api = (await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken))).owner;
      const created = await api.post("/api/webhooks", {
        url: receiver.url(`/${name}`),
        event_types: ["contact.created"],
      });
      expect(created.status).toBe(201);
      apis.set(name, api);
    }
    // From here on the webhooks service runs only as processes.
    await system.services.find((service) => service.name === "webhooks")?.stop();
    replicas.push(...(await Promise.all([startWebhooksProcess(env), startWebhooksProcess(env)])));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(replicas.map((running) => running.stop()));
    await system?.stop();
    await receiver.stop();
    await admin?.end();
    await database?.drop();
  });

  it("delivers every event of a burst during which a replica was killed with SIGKILL", async () => {
    // Answers held long enough that both replicas have attempts in flight most of the time.
    receiver.holdMs = 200;
    const burst = contactBurst(apis.get("killed") as ApiClient, "Killed", 0, BURST);
    // Killed while it is sending: more attempts in flight than one replica may hold to the endpoint
    // (WEBHOOK_ENDPOINT_CONCURRENCY, 16), so some are the killed one's.
    const unanswered = () => requestsTo("/killed").filter((r) => r.answeredAt === 0).length;
    await eventually(async () => (unanswered() > 16 ? true : undefined), 120_000, 10);
    const inFlight = unanswered();
    const killed = replicas.shift();
    await killed?.stop("SIGKILL");
    const created = await burst;
    replicas.push(await startWebhooksProcess(env));

    // What the killed process held is taken over once its leases run out: every delivery succeeds,
    // and every event has reached the receiver.
    await eventually(async () => ((await succeeded("/killed")) === BURST ? true : undefined), 150_000, 500);
    const delivered = contactIds(requestsTo("/killed"));
    expect(created.filter((id) => !delivered.has(id))).toEqual([]);
    const requests = requestsTo("/killed");
    const arrivals = new Map<string, number[]>();
    for (const request of requests) {
      const id = String(request.headers["webhook-id"]);
      arrivals.set(id, [...(arrivals.get(id) ?? []), request.arrivedAt]);
    }
    expect(arrivals.size).toBe(BURST);
    const twice = [...arrivals].filter(([, times]) => times.length > 1);
    process.stdout.write(
      `SIGKILL during a burst of ${BURST}: ${inFlight} requests unanswered then, ${twice.length} events arrived twice\n`,
    );
    // What the killed process had sent and could not record is sent again, once its lease ran out.
    expect(twice.length).toBeGreaterThan(0);
    expect(twice.filter(([, times]) => times.length > 2)).toEqual([]);
    // Every delivery records one attempt: no attempt was sent by two living replicas.
    const attempts = await system.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id
         JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id WHERE ep.url = $1`,
      [receiver.url("/killed")],
    );
    expect(attempts.rows[0]?.n).toBe(BURST);
    expect(overlappingAttempts(requests)).toEqual([]);
  });

  it("delivers every event of a burst during which the replicas' database connections were dropped", async () => {
    receiver.holdMs = 20;
    const databaseName = new URL(database.url).pathname.slice(1);
    let terminated = 0;
    let bursting = true;
    const burst = contactBurst(apis.get("dropped") as ApiClient, "Dropped", 0, BURST / 2).finally(() => {
      bursting = false;
    });
    // Only the webhooks processes' connections (their application_name), only on this test's database.
    while (bursting || terminated === 0) {
      const result = await admin.query(
        `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = $1 AND application_name LIKE 'webhooks%' AND pid <> pg_backend_pid()) t`,
        [databaseName],
      );
      terminated += Number(result.rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const created = await burst;
    expect(terminated).toBeGreaterThan(0);
    await eventually(
      async () => {
        const delivered = contactIds(requestsTo("/dropped"));
        return created.every((id) => delivered.has(id)) ? true : undefined;
      },
      150_000,
      500,
    );
    const requests = requestsTo("/dropped");
    process.stdout.write(
      `${terminated} connections dropped during a burst of ${BURST / 2}: ${requests.length} requests\n`,
    );
    expect(replicas.every(alive), replicas.map((r) => r.output().slice(-2_000)).join("\n")).toBe(true);
    expect(overlappingAttempts(requests)).toEqual([]);
  });
});
