import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "@voiceops/platform";
import { AdminClient, eventually, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { webhooksService } from "../src/index.js";
import { Receiver } from "./receiver.js";

// Distributed mode: the webhooks service is stopped in the middle of a burst of events and
// started again; afterwards every event has reached the receiver (duplicates allowed). Then two
// replicas share a burst without sending any attempt twice.

const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
const BURST = 300;

describe.skipIf(!distributed)("webhooks across a restart of the service", () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let system: RunningSystem;
  let restarted: RunningService | undefined;
  let replica: RunningService | undefined;
  const env = testEnv();
  const receiver = new Receiver();

  beforeAll(async () => {
    database = await isolatedDatabase(process.env.DATABASE_URL ?? "");
    Object.assign(env, testEnv({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: "1000000" }));
    system = await startSystem({ env });
    await receiver.start();
  });
  afterAll(async () => {
    await replica?.stop();
    await restarted?.stop();
    await system?.stop();
    await receiver.stop();
    await database?.drop();
  });

  /** Another instance of the webhooks service on the system's database and bus: a replica. */
  function startWebhooks(): Promise<RunningService> {
    return startService(webhooksService, {
      db: system.db,
      bus: system.bus,
      logger: system.logger,
      internalToken: env.INTERNAL_TOKEN ?? "",
      host: "127.0.0.1",
      port: 0,
      peers: system.peers,
      objects: system.objects,
      env,
    });
  }

  it("delivers every event of a burst during which the service stopped and started again", async () => {
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    expect(
      (await tenant.owner.post("/api/webhooks", { url: receiver.url("/burst"), event_types: ["contact.created"] }))
        .status,
    ).toBe(201);
    const created: string[] = [];
    const burst = async (from: number, to: number) => {
      for (let i = from; i < to; i += 20) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(20, to - i) }, (_, k) =>
            tenant.owner.post("/api/contacts", { name: `Burst ${i + k}` }),
          ),
        );
        for (const response of batch) {
          expect(response.status).toBe(201);
          created.push(response.body.id);
        }
      }
    };
    await burst(0, BURST / 3);
    const running = system.services.find((service) => service.name === "webhooks");
    if (!running) throw new Error("no webhooks service in the system");
    await running.stop();
    await burst(BURST / 3, (2 * BURST) / 3);
    restarted = await startWebhooks();
    await burst((2 * BURST) / 3, BURST);
    const delivered = () =>
      new Set(
        receiver.received
          .filter((r) => r.path === "/burst")
          .map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id),
      );
    await eventually(async () => (created.every((id) => delivered().has(id)) ? true : undefined), 150_000, 500);
    expect(created).toHaveLength(BURST);
  });

  it("shares the work between two replicas without sending an attempt twice", async () => {
    replica = await startWebhooks();
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    expect(
      (await tenant.owner.post("/api/webhooks", { url: receiver.url("/replicas"), event_types: ["contact.created"] }))
        .status,
    ).toBe(201);
    const created: string[] = [];
    for (let i = 0; i < BURST; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, k) => tenant.owner.post("/api/contacts", { name: `Replica ${i + k}` })),
      );
      for (const response of batch) created.push(response.body.id);
    }
    const requests = () => receiver.received.filter((r) => r.path === "/replicas");
    await eventually(async () => (requests().length >= BURST ? true : undefined), 150_000, 500);
    // Every answer was 200: one attempt per event, so each webhook-id arrives once.
    const ids = requests().map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(BURST);
    expect(ids).toHaveLength(BURST);
    const delivered = new Set(requests().map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id));
    expect(created.every((id) => delivered.has(id))).toBe(true);
  });
});
