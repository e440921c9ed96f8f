import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, type Database } from "@voiceops/platform";
import { eventually, serviceDatabase } from "@voiceops/platform/testing";
import { pruneDeliveriesPeriodically } from "../src/delivery/retention.js";
import { webhooksService } from "../src/index.js";
import { DeliveryStore } from "../src/store/deliveries.js";

// The delivery log is kept for WEBHOOK_RETENTION_DAYS: against the run's database (PostgreSQL,
// or PGlite in memory). The rows are dated in 2000, so nothing a running system made is touched.

describe("pruning webhook deliveries past the retention", () => {
  let db: Database;
  const store = new DeliveryStore();
  const org = randomUUID();
  const endpoint = randomUUID();

  /** An event recorded at `at` with one delivery to the endpoint, one attempt made, and that delivery's next attempt. */
  async function recorded(at: string, nextAttemptAt: string | null): Promise<{ event: string; delivery: string }> {
    const event = randomUUID();
    const delivery = randomUUID();
    await db.query(
      "INSERT INTO webhooks.events (id, org_id, type, body, created_at) VALUES ($1, $2, 'contact.created', '{}', $3)",
      [event, org, at],
    );
    await db.query(
      `INSERT INTO webhooks.deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, 'contact.created', $5, 1, $6, $7)`,
      [delivery, org, endpoint, event, nextAttemptAt ? "failed" : "succeeded", nextAttemptAt, at],
    );
    await db.query(
      "INSERT INTO webhooks.attempts (delivery_id, at, response_status, duration_ms) VALUES ($1, $2, 200, 5)",
      [delivery, at],
    );
    return { event, delivery };
  }

  const left = async (table: "events" | "deliveries", ids: string[]) =>
    (await db.query<{ id: string }>(`SELECT id FROM webhooks.${table} WHERE id = ANY($1::uuid[])`, [ids])).rows
      .map((row) => row.id)
      .sort();
  const attemptsOf = async (ids: string[]) =>
    (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhooks.attempts WHERE delivery_id = ANY($1::uuid[])",
        [ids],
      )
    ).rows[0]?.n;

  beforeAll(async () => {
    db = await serviceDatabase(webhooksService, "webhooks-retention-test");
    await db.query(
      `INSERT INTO webhooks.endpoints (id, org_id, url, event_types, secret, created_at, updated_at)
       VALUES ($1, $2, 'https://example.com/hook', ARRAY['*'], 'whsec_test', '2000-01-01', '2000-01-01')`,
      [endpoint, org],
    );
  });
  afterAll(async () => {
    await db?.query("DELETE FROM webhooks.endpoints WHERE id = $1", [endpoint]);
    await db?.query("DELETE FROM webhooks.events WHERE org_id = $1", [org]);
    await db?.close();
  });

  it("deletes the deliveries and attempts recorded before the bound, then their events, in batches", async () => {
    const old = await Promise.all([1, 2, 3].map(() => recorded("2000-01-10T00:00:00Z", null)));
    // Still due (a retry, or resent): kept with its event until it is done. Due far ahead, so
    // the running system's delivery worker (same database) leaves it alone.
    const due = await recorded("2000-01-10T00:00:00Z", "2999-01-01T00:00:00Z");
    const recent = await recorded("2000-02-10T00:00:00Z", null);
    const all = [...old, due, recent];

    expect(await store.prune(db, new Date("2000-02-01T00:00:00Z"), 2)).toEqual({ deliveries: 3, events: 3 });
    expect(
      await left(
        "deliveries",
        all.map((r) => r.delivery),
      ),
    ).toEqual([due.delivery, recent.delivery].sort());
    expect(
      await left(
        "events",
        all.map((r) => r.event),
      ),
    ).toEqual([due.event, recent.event].sort());
    expect(await attemptsOf(old.map((r) => r.delivery))).toBe(0);
    expect(await attemptsOf([due.delivery, recent.delivery])).toBe(2);
    expect(await store.prune(db, new Date("2000-02-01T00:00:00Z"), 2)).toEqual({ deliveries: 0, events: 0 });
  });

  it("prunes at once when the service starts, and then every hour", async () => {
    const old = await recorded("2000-01-05T00:00:00Z", null);
    const kept = await recorded("2000-02-25T00:00:00Z", null);
    const pruning = pruneDeliveriesPeriodically(
      db,
      store,
      30,
      createLogger("silent"),
      () => new Date("2000-03-01T00:00:00Z"),
    );
    try {
      await eventually(async () => ((await left("deliveries", [old.delivery])).length === 0 ? true : undefined));
    } finally {
      await pruning.stop();
    }
    expect(await left("deliveries", [old.delivery, kept.delivery])).toEqual([kept.delivery]);
    expect(await left("events", [old.event, kept.event])).toEqual([kept.event]);
  });
});
