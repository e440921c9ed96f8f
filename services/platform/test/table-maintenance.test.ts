import { describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import type { Database } from "../src/db/database.js";
import { createPgliteDatabase } from "../src/db/pglite.js";
import {
  analyzeGrownTables,
  maintainPeriodically,
  serverAutovacuums,
  tablesWithDeadRows,
  vacuumTables,
} from "../src/db/table-maintenance.js";
import { fastPath } from "../src/fast-path/index.js";
import { openDatabase, readInfraConfig } from "../src/index.js";
import { testEnv } from "../src/testing/index.js";

// PGlite runs no autovacuum; a service vacuums its outbox (and tables like it) and analyzes its
// grown tables itself.
describe("maintaining tables on PGlite", () => {
  const size = async (db: Database) =>
    Number((await db.query<{ bytes: string }>("SELECT pg_relation_size('churn')::text AS bytes")).rows[0]?.bytes);
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

  it("vacuums and analyzes at once and then periodically, keeping the prepared statements", async () => {
    await withTable(async (db) => {
      const prepared = async () =>
        (await db.query<{ name: string }>("SELECT name FROM pg_prepared_statements")).rows.map((row) => row.name);
      const lastVacuum = async () =>
        (
          await db.query<{ at: Date | null }>(
            "SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relname = 'churn'",
          )
        ).rows[0]?.at ?? null;
      const lastAnalyze = async () =>
        (
          await db.query<{ at: Date | null }>(
            "SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'churn'",
          )
        ).rows[0]?.at ?? null;
      await db.query("INSERT INTO churn (payload) SELECT repeat('x', 200) FROM generate_series(1, 2000)");
      expect(await lastVacuum()).toBeNull();
      expect(await lastAnalyze()).toBeNull();
      const before = await prepared();
      const maintenance = maintainPeriodically(db, "public", ["churn"], createLogger("silent"));
      try {
        await expect.poll(lastVacuum, { timeout: 60_000 }).not.toBeNull();
        await expect.poll(lastAnalyze, { timeout: 60_000 }).not.toBeNull();
      } finally {
        await maintenance.stop();
      }
      // Only the fast path prepares statements (PGlite's own query() runs each unnamed).
      if (fastPath("pglite")) expect(before.length).toBeGreaterThan(0);
      expect(await prepared()).toEqual(expect.arrayContaining(before));
    });
  });

  it("vacuums any table of its schema whose dead rows pass autovacuum's threshold, and only then", async () => {
    await withTable(async (db) => {
      await db.exec("CREATE TABLE pruned (id int PRIMARY KEY, payload text)");
      await db.query("INSERT INTO pruned SELECT i, repeat('x', 50) FROM generate_series(1, 1000) AS i");
      const deadRows = async () =>
        Number(
          (await db.query<{ n: number }>("SELECT n_dead_tup AS n FROM pg_stat_user_tables WHERE relname = 'pruned'"))
            .rows[0]?.n,
        );
      // A backend passes on its counts at most once a second.
      const settled = { timeout: 10_000 };
      // 10 dead rows against 990 live ones: under 50 and a fifth of the live rows.
      await db.query("DELETE FROM pruned WHERE id <= 10");
      await expect.poll(deadRows, settled).toBe(10);
      expect(await tablesWithDeadRows(db, "public")).toEqual([]);
      await db.query("DELETE FROM pruned WHERE id <= 910");
      await expect.poll(deadRows, settled).toBe(910);
      expect(await tablesWithDeadRows(db, "public")).toEqual(["public.pruned"]);
      const maintenance = maintainPeriodically(db, "public", ["churn"], createLogger("silent"));
      try {
        await expect.poll(() => tablesWithDeadRows(db, "public"), { timeout: 30_000 }).toEqual([]);
      } finally {
        await maintenance.stop();
      }
      const vacuumed = await db.query<{ at: Date | null }>(
        "SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relname = 'pruned'",
      );
      expect(vacuumed.rows[0]?.at).not.toBeNull();
    });
  });

  it("analyzes the tables of its schema that grew by a fifth since their last statistics, and only those", async () => {
    await withTable(async (db) => {
      await db.exec("CREATE SCHEMA other; CREATE TABLE other.grown (id int PRIMARY KEY, payload text)");
      const analyses = async (table: string) =>
        Number(
          (
            await db.query<{ n: number }>(
              "SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = $1",
              [table],
            )
          ).rows[0]?.n,
        );
      const fill = (from: number, to: number) =>
        db.query("INSERT INTO churn (payload) SELECT repeat('x', 200) FROM generate_series($1::int, $2::int)", [
          from,
          to,
        ]);
      // Small tables (under ten pages) are left alone.
      await fill(1, 100);
      expect(await analyzeGrownTables(db, "public")).toEqual([]);
      await fill(101, 2000);
      expect(await analyzeGrownTables(db, "public")).toEqual(["public.churn"]);
      expect(await analyses("churn")).toBe(1);
      // Statistics now: the planner knows the rows.
      const known = await db.query<{ tuples: number }>(
        "SELECT reltuples::int AS tuples FROM pg_class WHERE relname = 'churn'",
      );
      expect(known.rows[0]?.tuples).toBe(2000);
      // Not again until it grows by a fifth; another schema's table is not this service's.
      await fill(2001, 2200);
      await db.query("INSERT INTO other.grown SELECT i, repeat('x', 200) FROM generate_series(1, 5000) AS i");
      expect(await analyzeGrownTables(db, "public")).toEqual([]);
      await fill(2201, 2500);
      expect(await analyzeGrownTables(db, "public")).toEqual(["public.churn"]);
      expect(await analyses("churn")).toBe(2);
      expect(await analyses("grown")).toBe(0);
    });
  });

  it("makes a prepared statement's kept plan follow its table's growth", async () => {
    await withTable(async (db) => {
      await db.exec(
        "CREATE TABLE big (k int PRIMARY KEY, payload text); INSERT INTO big SELECT i, 'x' FROM generate_series(1, 20) AS i",
      );
      // A batch joined against the table, as a generic plan keeps it (the batch's size unknown).
      await db.exec(
        "SET plan_cache_mode = force_generic_plan; PREPARE probe(jsonb) AS SELECT b.* FROM jsonb_to_recordset($1) AS i(k int) JOIN big AS b USING (k)",
      );
      const plan = async () =>
        (await db.query<Record<string, string>>("EXPLAIN EXECUTE probe('[]')")).rows
          .map((row) => Object.values(row)[0])
          .join("\n");
      expect(await plan()).toMatch(/Seq Scan on big/);
      await db.query("INSERT INTO big SELECT i, repeat('x', 100) FROM generate_series(21, 50000) AS i");
      // Grown 2,500 times over, and still read whole for every batch.
      expect(await plan()).toMatch(/Seq Scan on big/);
      expect(await analyzeGrownTables(db, "public")).toContain("public.big");
      expect(await plan()).toMatch(/Index Scan using big_pkey on big/);
    });
  });
});

// On PostgreSQL the server's autovacuum looks after the tables, unless it is off: then the
// service does, as on PGlite (an outbox took 130,000 dead rows in a minute of writes, and
// PostgreSQL's CPU per write grew by four fifths over six rounds of load).
describe.runIf(process.env.DATABASE_URL)("maintaining tables on PostgreSQL", () => {
  it("vacuums the churning tables itself exactly when the server's autovacuum is off", async () => {
    const schema = `maintenance_test_${process.pid}`;
    const db = await openDatabase(readInfraConfig(testEnv()), {
      name: "maintenance-test",
      poolSize: 2,
      logger: createLogger("silent"),
      inMemory: true,
    });
    try {
      await db.exec(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.churn (seq bigserial PRIMARY KEY, payload text)`);
      await db.query(`INSERT INTO ${schema}.churn (payload) SELECT 'x' FROM generate_series(1, 100)`);
      await db.query(`DELETE FROM ${schema}.churn`);
      const shown = await db.query<{ autovacuum: string }>("SHOW autovacuum");
      const autovacuums = shown.rows[0]?.autovacuum === "on";
      expect(await serverAutovacuums(db)).toBe(autovacuums);
      // last_vacuum is a VACUUM's own time; autovacuum's runs set last_autovacuum.
      const lastVacuum = async () =>
        (
          await db.query<{ at: Date | null }>(
            "SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'churn'",
            [schema],
          )
        ).rows[0]?.at ?? null;
      const maintenance = maintainPeriodically(db, schema, [`${schema}.churn`], createLogger("silent"));
      try {
        if (autovacuums) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          expect(await lastVacuum()).toBeNull();
        } else {
          await expect.poll(lastVacuum, { timeout: 30_000 }).not.toBeNull();
        }
      } finally {
        await maintenance.stop();
      }
    } finally {
      await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.close();
    }
  });
});
