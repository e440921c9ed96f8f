import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { v7 } from "uuid";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { migrate } from "../src/db/migrate.js";
import { pruneLedgerPeriodically, pruneProcessedEvents } from "../src/events/ledger.js";
import { firstIdAt } from "../src/ids.js";
import { eventually, testEnv } from "../src/testing/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;

// The ledger of processed events keeps the events the bus can still deliver: against the run's
// database (PostgreSQL, or PGlite in memory).
describe("pruning the ledger of processed events", () => {
  const schema = `ledger_test_${process.pid}`;
  const logger = createLogger("silent");
  const now = new Date("2026-11-26T12:00:00Z");
  let db: Database;

  /** An event id made `ms` before now. */
  const madeAgo = (ms: number) => v7({ msecs: now.getTime() - ms });
  const record = (consumer: string, ids: string[]) =>
    db.query(`INSERT INTO ${schema}.processed_events (consumer, event_id) SELECT $1, unnest($2::uuid[])`, [
      consumer,
      ids,
    ]);
  const left = async () =>
    (
      await db.query<{ consumer: string; event_id: string }>(
        `SELECT consumer, event_id FROM ${schema}.processed_events ORDER BY consumer, event_id`,
      )
    ).rows.map((r) => `${r.consumer} ${r.event_id}`);

  beforeAll(async () => {
    db = await openDatabase(readInfraConfig(testEnv()), { name: "ledger-test", poolSize: 2, logger, inMemory: true });
    await migrate(db, schema, []);
  });
  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });
  beforeEach(async () => {
    await db.exec(`TRUNCATE ${schema}.processed_events`);
  });

  it("orders ids by the moment they were made around the bound", () => {
    const at = new Date("2026-01-02T03:04:05.678Z");
    expect(v7({ msecs: at.getTime() - 1 }) < firstIdAt(at)).toBe(true);
    expect(v7({ msecs: at.getTime() }) >= firstIdAt(at)).toBe(true);
    expect(firstIdAt(at)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-0000-0000-000000000000$/);
  });

  it("deletes the records of events made before the bound, of every consumer, in batches", async () => {
    const before = new Date(now.getTime() - 400 * DAY_MS);
    const recent = [madeAgo(10 * DAY_MS), madeAgo(400 * DAY_MS)];
    await record("alerts", [madeAgo(500 * DAY_MS), madeAgo(450 * DAY_MS), madeAgo(400 * DAY_MS + 1), ...recent]);
    await record("billing", [madeAgo(401 * DAY_MS)]);
    const kept = madeAgo(DAY_MS);
    await record("counts", [kept]);

    expect(await pruneProcessedEvents(db, schema, before, 2)).toBe(4);
    expect(await left()).toEqual([...recent.sort().map((id) => `alerts ${id}`), `counts ${kept}`]);
    expect(await pruneProcessedEvents(db, schema, before, 2)).toBe(0);
  });

  it("prunes at once when a service starts, and then every hour", async () => {
    await record("alerts", [madeAgo(30 * DAY_MS), madeAgo(2 * DAY_MS)]);
    const pruning = pruneLedgerPeriodically(db, schema, 7, logger, () => now);
    try {
      await eventually(async () => ((await left()).length === 1 ? true : undefined));
    } finally {
      await pruning.stop();
    }
    expect(await left()).toHaveLength(1);
  });
});
