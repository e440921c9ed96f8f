import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContactCreatedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { createLogger, decodeEvent, newId, readInfraConfig, type EventBus } from "@voiceops/platform";
import { createNatsBus } from "../../services/platform/src/bus/nats.js";
import { AdminClient, eventually, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";

const CONTACTS = 20;
const natsUrl = process.env.NATS_URL;
const databaseUrl = process.env.DATABASE_URL;

/** A loopback TCP proxy to NATS that the test can cut and restore: the bus "goes away". */
function natsProxy(target: URL) {
  let up = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(Number(target.port || 4222), target.hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.pipe(upstream).pipe(client);
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
      ),
    cut() {
      up = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      up = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function outboxBacklog(system: RunningSystem): Promise<number> {
  const result = await system.db.query<{ n: number }>("SELECT count(*)::int AS n FROM crm.outbox");
  return Number(result.rows[0]?.n);
}

async function createContacts(system: RunningSystem) {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const ids: string[] = [];
  for (let i = 0; i < CONTACTS; i++) {
    const res = await tenant.owner.post("/api/contacts", {
      name: `Outbox ${i}`,
      phone_number: `+1555019${String(i).padStart(4, "0")}`,
    });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return { orgId: tenant.orgId, ids };
}

describe.skipIf(!natsUrl || !databaseUrl)("outbox with NATS unreachable", () => {
  const proxy = natsProxy(new URL(natsUrl ?? "nats://127.0.0.1:4222"));
  let database: { url: string; drop(): Promise<void> };
  let system: RunningSystem;
  let observer: EventBus;
  const seen: { id: string; orgId: string; contactId: string }[] = [];

  beforeAll(async () => {
    const port = await proxy.listen();
    database = await isolatedDatabase(databaseUrl ?? "");
    const env = testEnv({ DATABASE_URL: database.url, NATS_URL: `nats://127.0.0.1:${port}` });
    system = await startSystem({ env });
    // An independent observer on the real NATS, with a durable consumer of its own.
    observer = createNatsBus({
      url: natsUrl ?? "",
      name: "outbox-test",
      logger: createLogger("silent"),
      prefix: readInfraConfig(env).natsPrefix,
      retentionDays: 1,
    });
    await observer.subscribe({
      durable: `outbox-test-${newId()}`,
      subject: "crm.contact.created",
      startAt: "new",
      expireAfterIdleMs: 60_000,
      handler: async (message) => {
        const event = decodeEvent(message.data, ContactCreatedSchema);
        seen.push({ id: event.id, orgId: event.orgId, contactId: event.payload.contact?.id ?? "" });
      },
    });
  });

  afterAll(async () => {
    await system?.stop();
    await observer?.close();
    await proxy.close();
    await database?.drop();
  });

  it("keeps every event while NATS is down and publishes each once when it is back", async () => {
    proxy.cut();
    await eventually(async () => (system.bus.healthy() ? undefined : true), 60_000);
    const { orgId, ids } = await createContacts(system);
    expect(await outboxBacklog(system)).toBeGreaterThanOrEqual(CONTACTS);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen.filter((e) => e.orgId === orgId)).toHaveLength(0);

    proxy.restore();
    const mine = await eventually(async () => {
      const events = seen.filter((e) => e.orgId === orgId);
      return events.length >= CONTACTS ? events : undefined;
    }, 120_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = seen.filter((e) => e.orgId === orgId);
    expect(all).toHaveLength(CONTACTS);
    expect(new Set(all.map((e) => e.id)).size).toBe(CONTACTS);
    expect(mine.map((e) => e.contactId).sort()).toEqual([...ids].sort());
    expect(await outboxBacklog(system)).toBe(0);
  });
});

describe.skipIf(Boolean(natsUrl))("outbox with the in-process consumer failing", () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ env: testEnv(), inMemory: true });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("keeps every event while delivery fails and delivers each once afterwards", async () => {
    let down = true;
    const seen: { id: string; orgId: string }[] = [];
    await system.bus.subscribe({
      durable: "outbox-test",
      subject: "crm.contact.created",
      handler: async (message) => {
        if (down) throw new Error("consumer unavailable");
        const event = decodeEvent(message.data, ContactCreatedSchema);
        seen.push({ id: event.id, orgId: event.orgId });
      },
    });
    const { orgId } = await createContacts(system);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toHaveLength(0);
    expect(await outboxBacklog(system)).toBe(CONTACTS);

    down = false;
    await eventually(async () => (seen.length >= CONTACTS ? true : undefined), 120_000);
    expect(seen.every((e) => e.orgId === orgId)).toBe(true);
    expect(new Set(seen.map((e) => e.id)).size).toBe(CONTACTS);
    expect(seen).toHaveLength(CONTACTS);
    expect(await outboxBacklog(system)).toBe(0);
  });
});
