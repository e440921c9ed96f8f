import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ContactCreatedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { createMemoryBus } from "../src/bus/memory.js";
import { migrate } from "../src/db/migrate.js";
import { enqueueEvents } from "../src/events/outbox.js";
import { OutboxRelay } from "../src/events/relay.js";
import { testEnv } from "../src/testing/index.js";

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
    await db.transaction(async (tx) =>
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
});
