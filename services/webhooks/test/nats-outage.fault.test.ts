import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdminClient,
  type ApiClient,
  eventually,
  freePort,
  isolatedDatabase,
  newTenant,
  type RunningProcess,
  runProcess,
  testEnv,
} from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { contactBurst, contactIds } from "./faults.js";
import { Receiver } from "./receiver.js";

// Distributed mode, on a NATS server of the test's own (the machine's shared one is never
// stopped): NATS is stopped for 30 s while events keep being made, which wait in the services'
// outboxes, then started again on the same port and store. Every event reaches the receiver.

const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
const OUTAGE_MS = 30_000;

describe.skipIf(!distributed)("webhook delivery across a 30 s NATS outage", () => {
  const storeDir = mkdtempSync(join(tmpdir(), "voiceops-nats-"));
  let natsPort: number;
  let nats: RunningProcess | undefined;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let system: RunningSystem;
  let api: ApiClient;
  const receiver = new Receiver();

  /** Starts the test's NATS server (JetStream, its store in storeDir) and waits until it serves. */
  async function startNats(): Promise<RunningProcess> {
    const running = runProcess("nats-server", ["-a", "127.0.0.1", "-p", String(natsPort), "-js", "-sd", storeDir], {});
    await eventually(
      async () => {
        if (running.child.exitCode !== null) throw new Error(`nats-server exited: ${running.output()}`);
        return running.output().includes("Server is ready") ? true : undefined;
      },
      30_000,
      50,
    );
    return running;
  }

  beforeAll(async () => {
    natsPort = await freePort();
    nats = await startNats();
    database = await isolatedDatabase(process.env.DATABASE_URL ?? "");
    const env = testEnv({
      DATABASE_URL: database.url,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      RATE_LIMIT_PER_MINUTE: "100000000",
    });
    system = await startSystem({ env });
    await receiver.start();
    api = (await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken))).owner;
    const endpoint = await api.post("/api/webhooks", {
      url: receiver.url("/outage"),
      event_types: ["contact.created"],
    });
    expect(endpoint.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await nats?.stop();
    await receiver.stop();
    await database?.drop();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it("delivers the events made before, during and after the outage", async () => {
    const created = await contactBurst(api, "Before", 0, 200);
    await nats?.stop();
    const stoppedAt = Date.now();
    // Events keep being made while NATS is down: the writes succeed, the events wait in the outbox.
    let during = 0;
    while (Date.now() - stoppedAt < OUTAGE_MS) {
      created.push(...(await contactBurst(api, "During", during, during + 25)));
      during += 25;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    nats = await startNats();
    created.push(...(await contactBurst(api, "After", 0, 200)));

    await eventually(
      async () => {
        const delivered = contactIds(receiver.received);
        return created.every((id) => delivered.has(id)) ? true : undefined;
      },
      120_000,
      500,
    );
    process.stdout.write(`NATS outage: ${during} events made during it, ${created.length} in all, delivered\n`);
    expect(during).toBeGreaterThan(0);
  });
});
