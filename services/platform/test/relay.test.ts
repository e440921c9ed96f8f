import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ContactCreatedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { createMemoryBus } from "../src/bus/memory.js";
import { migrate } from "../src/db/migrate.js";
import { enqueueEvents } from "../src/events/outbox.js";
import { OutboxRelay } from "../src/events/relay.js";
import { eventually, testEnv } from "../src/testing/index.js";

// PostgreSQL only: PGlite has one connection, which the relay shares by design.
describe.skipIf(!process.env.DATABASE_URL)("outbox relay on PostgreSQL", () => {
  const schema = `relay_test_${process.pid}`;
  let db: Database;
  beforeAll(async () => {
    // A request pool of one connection, so one open transaction leaves it nothing.
    db = await openDatabase(readInfraConfig(testEnv()), {
      name: "relay-test",
      poolSize: 1,
      logger: createLogger("silent"),
    });
    await migrate(db, schema, []);
  });
  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });
  /** Commits one contact.created event to the outbox, in a transaction of its own. */
  const commitEvent = (id: string) =>
    db.transaction(async (tx) =>
      enqueueEvents(tx, schema, [
        {
          id,
          orgId: randomUUID(),
          type: "crm.contact.created",
          occurredAt: new Date(),
          schema: ContactCreatedSchema,
          payload: create(ContactCreatedSchema, {}),
        },
      ]),
    );

  it("publishes while every connection of the request pool is taken", async () => {
    const bus = createMemoryBus();
    const relay = new OutboxRelay({ db, bus, schema, logger: createLogger("silent"), idleMs: 50 });
    const id = randomUUID();
    const received = new Promise<string>((resolve) => {
      void bus.subscribe({
        durable: "relay-test",
        subject: "crm.contact.created",
        handler: async (message) => resolve(message.id),
      });
    });
    await commitEvent(id);
    try {
      // The pool's one connection is in a transaction before the relay starts, and stays there
      // until the event has gone out: a relay that queued for it would wait forever (and the
      // test time out).
      const published = await db.transaction(async (tx) => {
        await tx.query("SELECT 1");
        relay.start();
        return received;
      });
      expect(published).toBe(id);
    } finally {
      await relay.stop();
      await bus.close();
    }
  });

  it("publishes in commit order while the relays of two replicas share the outbox", async () => {
    // A second replica: its own pools, so its relay claims on a connection of its own.
    const replica = await openDatabase(readInfraConfig(testEnv()), {
      name: "relay-test-replica",
      poolSize: 1,
      logger: createLogger("silent"),
    });
    const bus = createMemoryBus();
    const seen: string[] = [];
    // Publishing takes a while (the in-process bus runs the handler inside publish), so two
    // relays publishing at once would interleave their batches.
    await bus.subscribe({
      durable: "relay-order-test",
      subject: "crm.contact.created",
      handler: async (message) => {
        seen.push(message.id);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
      },
    });
    const relays = [db, replica].map(
      (database) =>
        new OutboxRelay({ db: database, bus, schema, logger: createLogger("silent"), idleMs: 5, lingerMs: 0 }),
    );
    for (const relay of relays) relay.start();
    const committed: string[] = [];
    try {
      for (let n = 0; n < 150; n++) {
        const id = randomUUID();
        committed.push(id);
        await commitEvent(id);
        relays[n % 2]?.nudge();
      }
      await eventually(async () => (seen.length >= committed.length ? true : undefined), 60_000);
      expect(seen).toEqual(committed);
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
      await bus.close();
      await replica.close();
    }
  });
});
