import { describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import type { Database } from "../src/db/database.js";
import { createPgliteDatabase } from "../src/db/pglite.js";
import { vacuumPeriodically, vacuumTables } from "../src/db/pglite-vacuum.js";

// PGlite runs no autovacuum; a service vacuums its outbox (and tables like it) itself.
describe("vacuuming churning tables on PGlite", () => {
  const size = async (db: Database) => Number((await db.query<{ bytes: string }>("SELECT pg_relation_size('churn')::text AS bytes")).rows[0]?.bytes);
  /** Writes and deletes 3,000 rows, as an outbox does with the events it publishes. */
  const churn = async (db: Database) => {
    await db.query("INSERT INTO churn (payload) SELECT repeat('x', 200) FROM generate_series(1, 3000)");
    await db.query("DELETE FROM churn");
  };
  const withTable = async (fn: (db: Database) => Promise<void>) => {
    const db = await createPgliteDatabase(undefined);
    try {
      await db.exec("CREATE TABLE churn (seq bigserial PRIMARY KEY, payload text NOT NULL)");
      await fn(db);
    } finally {
      await db.close();
    }
  };

  it("lets new rows reuse the space of deleted ones, where without it the table grows", async () => {
    await withTable(async (db) => {
      await churn(db);
      const first = await size(db);
      await churn(db);
      // Without a vacuum each round takes new pages.
      expect(await size(db)).toBeGreaterThan(first * 1.5);
      for (let round = 0; round < 4; round++) {
        await vacuumTables(db, ["churn"]);
        await churn(db);
      }
      // Each round's rows fit where the last round's were.
      expect(await size(db)).toBeLessThanOrEqual(first);
    });
  });

  it("runs at once and then periodically, keeping the prepared statements; not on PostgreSQL", async () => {
    await withTable(async (db) => {
      const prepared = async () => Number((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows[0]?.n);
      const lastVacuum = async () => (await db.query<{ at: Date | null }>("SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relname = 'churn'")).rows[0]?.at ?? null;
      expect(await lastVacuum()).toBeNull();
      const before = await prepared();
      const vacuum = vacuumPeriodically(db, ["churn"], createLogger("silent"));
      try {
        await expect.poll(lastVacuum, { timeout: 5_000 }).not.toBeNull();
      } finally {
        await vacuum?.stop();
      }
      expect(await prepared()).toBe(before);
      expect(vacuumPeriodically({ ...db, kind: "postgres" }, ["churn"], createLogger("silent"))).toBeUndefined();
    });
  });
});
