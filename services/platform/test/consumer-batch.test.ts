import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ContactCreatedSchema, ContactDeletedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import {
  createLogger,
  handlerOf,
  newEvent,
  openDatabase,
  readInfraConfig,
  type Database,
  type DomainEvent,
  type EventConsumer,
  type StreamConsumer,
} from "../src/index.js";
import { createMemoryBus } from "../src/bus/memory.js";
import { migrate } from "../src/db/migrate.js";
import { encodeEvent } from "../src/events/envelope.js";
import { startConsumer } from "../src/events/consumer.js";
import { enqueueEvents } from "../src/events/outbox.js";
import { OutboxRelay } from "../src/events/relay.js";
import { testEnv } from "../src/testing/index.js";

// The in-process bus hands a consumer the relay's batch at once, and the consumer applies it in
// one transaction: against the real database of the run (PostgreSQL, or PGlite in memory).
describe("a consumer on the in-process bus", () => {
  const schema = `batch_test_${process.pid}`;
  const logger = createLogger("silent");
  let db: Database;
  let broken: string | undefined;
  /** When set, each event handled adds how many outbox rows carry a lease at that moment. */
  let leases: number[] | undefined;

  /** Records each event it applies, with the transaction that applied it; fails on `broken`. */
  const consumer: EventConsumer<typeof ContactCreatedSchema> = {
    durable: "batch-test",
    subject: "crm.contact.created",
    schema: ContactCreatedSchema,
    async handle(event, tx) {
      if (event.payload.contact?.name === broken) throw new Error(`cannot apply ${broken}`);
      if (leases)
        leases.push(
          (
            await tx.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM ${schema}.outbox WHERE claimed_until IS NOT NULL`,
            )
          ).rows[0]?.n ?? -1,
        );
      await tx.query(`INSERT INTO ${schema}.applied (event_id, name, tx) VALUES ($1, $2, txid_current())`, [
        event.id,
        event.payload.contact?.name ?? "",
      ]);
    },
  };

  const contactCreated = (name: string): DomainEvent =>
    newEvent(
      "00000000-0000-4000-8000-000000000001",
      "crm.contact.created",
      ContactCreatedSchema,
      create(ContactCreatedSchema, { contact: { name } }),
    );
  const applied = async () =>
    (
      await db.query<{ event_id: string; name: string; tx: string }>(
        `SELECT event_id, name, tx::text AS tx FROM ${schema}.applied ORDER BY n`,
      )
    ).rows;
  const outboxSize = async () =>
    Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.outbox`)).rows[0]?.n);

  beforeAll(async () => {
    db = await openDatabase(readInfraConfig(testEnv()), { name: "batch-test", poolSize: 4, logger, inMemory: true });
    await migrate(db, schema, []);
    await db.exec(
      `CREATE TABLE ${schema}.applied (n serial PRIMARY KEY, event_id uuid NOT NULL, name text NOT NULL, tx bigint NOT NULL)`,
    );
  });
  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });
  beforeEach(async () => {
    broken = undefined;
    leases = undefined;
    await db.exec(`TRUNCATE ${schema}.applied, ${schema}.outbox, ${schema}.processed_events`);
  });

  async function withConsumer(
    fn: (relay: OutboxRelay, bus: ReturnType<typeof createMemoryBus>) => Promise<void>,
  ): Promise<void> {
    const bus = createMemoryBus();
    const subscription = await startConsumer({ bus, db, schema, logger, onEmitted: () => undefined }, consumer);
    try {
      await fn(new OutboxRelay({ db, bus, schema, logger }), bus);
    } finally {
      await subscription.stop();
      await bus.close();
    }
  }

  it("applies a claimed batch in one transaction, in commit order", async () => {
    const events = ["a", "b", "c", "d", "e", "f"].map(contactCreated);
    await db.transaction(async (tx) => enqueueEvents(tx, schema, events));
    await withConsumer(async (relay) => {
      expect(await relay.drain()).toBe(6);
    });
    const rows = await applied();
    expect(rows.map((row) => row.name)).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(rows.map((row) => row.event_id)).toEqual(events.map((event) => event.id));
    expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
    expect(await outboxSize()).toBe(0);
  });

  it("sends the events before a failing one, keeps it and the rest, and applies each once when it recovers", async () => {
    await db.transaction(async (tx) => enqueueEvents(tx, schema, ["a", "b", "c", "d", "e"].map(contactCreated)));
    broken = "c";
    await withConsumer(async (relay) => {
      await expect(relay.drain()).rejects.toThrow("cannot apply c");
      expect((await applied()).map((row) => row.name)).toEqual(["a", "b"]);
      expect(await outboxSize()).toBe(3);
      broken = undefined;
      expect(await relay.drain()).toBe(3);
    });
    const rows = await applied();
    expect(rows.map((row) => row.name)).toEqual(["a", "b", "c", "d", "e"]);
    // The retried three went out together again.
    expect(new Set(rows.slice(2).map((row) => row.tx)).size).toBe(1);
    expect(await outboxSize()).toBe(0);
  });

  it("skips events it has applied, and an event the batch holds twice", async () => {
    const [a, b] = [contactCreated("a"), contactCreated("b")] as [DomainEvent, DomainEvent];
    const message = (event: DomainEvent) => ({ subject: event.type, id: event.id, data: encodeEvent(event) });
    await withConsumer(async (_relay, bus) => {
      await bus.publish(message(a));
      await bus.publishAll?.([message(a), message(b), message(b)]);
    });
    expect((await applied()).map((row) => row.name)).toEqual(["a", "b"]);
  });

  it("leases the rows it publishes on PostgreSQL, where replicas share the outbox, and not on PGlite", async () => {
    await db.transaction(async (tx) => enqueueEvents(tx, schema, ["a", "b"].map(contactCreated)));
    leases = [];
    await withConsumer(async (relay) => {
      expect(await relay.drain()).toBe(2);
    });
    expect(leases).toEqual(db.kind === "postgres" ? [2, 2] : [0, 0]);
    expect(await outboxSize()).toBe(0);
  });

  it("hands consecutive events of a type with handleAll to it together, after skipping those it has applied", async () => {
    // created has handleAll, deleted has not; each call is recorded with the names it got.
    const calls: string[] = [];
    const stream: StreamConsumer = {
      durable: "batch-test-runs",
      subject: "crm.>",
      handlers: {
        "crm.contact.created": handlerOf(
          ContactCreatedSchema,
          async (event) => void calls.push(`one ${event.payload.contact?.name}`),
          async (events) => {
            if (events.some((event) => event.payload.contact?.name === broken))
              throw new Error(`cannot apply ${broken}`);
            calls.push(`all ${events.map((event) => event.payload.contact?.name).join(",")}`);
          },
        ),
        "crm.contact.deleted": handlerOf(
          ContactDeletedSchema,
          async (event) => void calls.push(`deleted ${event.payload.contactId}`),
        ),
      },
    };
    const deleted = (contactId: string): DomainEvent =>
      newEvent(
        "00000000-0000-4000-8000-000000000001",
        "crm.contact.deleted",
        ContactDeletedSchema,
        create(ContactDeletedSchema, { contactId }),
      );
    const [a, b, c, d, e, f, g] = ["a", "b", "c", "d", "e", "f", "g"].map(contactCreated) as [
      DomainEvent,
      DomainEvent,
      DomainEvent,
      DomainEvent,
      DomainEvent,
      DomainEvent,
      DomainEvent,
    ];
    const [x, y, z] = [deleted("x"), deleted("y"), deleted("z")];
    const message = (event: DomainEvent) => ({ subject: event.type, id: event.id, data: encodeEvent(event) });
    const bus = createMemoryBus();
    const subscription = await startConsumer({ bus, db, schema, logger, onEmitted: () => undefined }, stream);
    try {
      await bus.publish(message(b));
      calls.length = 0;
      // b was applied: a and c are one run once it is skipped; d stands alone between two others.
      await bus.publishAll?.([
        message(a),
        message(b),
        message(c),
        message(x),
        message(y),
        message(d),
        message(z),
        message(e),
        message(f),
        message(g),
      ]);
      expect(calls).toEqual(["all a,c", "deleted x", "deleted y", "one d", "deleted z", "all e,f,g"]);
      // A run that fails is not applied; the transaction and the rest of the batch go with it.
      calls.length = 0;
      broken = "h";
      const [h, i] = [contactCreated("h"), contactCreated("i")];
      await expect(bus.publishAll?.([message(h), message(i)])).rejects.toThrow("cannot apply h");
      expect(calls).toEqual([]);
      broken = undefined;
      await bus.publishAll?.([message(h), message(i)]);
      expect(calls).toEqual(["all h,i"]);
    } finally {
      await subscription.stop();
      await bus.close();
    }
  });
});
