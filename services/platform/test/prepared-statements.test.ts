import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { testEnv } from "../src/testing/index.js";

// Statements run with `prepared` against the run's database (PostgreSQL, or PGlite in memory).
describe("prepared statements", () => {
  const schema = `prepared_test_${process.pid}`;
  const logger = createLogger("silent");
  let db: Database;

  /** Statements prepared on the (one) connection of the pool whose text mentions the schema. */
  const preparedHere = async () =>
    (
      await db.query<{ statement: string }>(
        `SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%' || $1 || '%' AND NOT from_sql`,
        [`${schema}.items`],
      )
    ).rows.map((r) => r.statement);

  beforeAll(async () => {
    // The pool's own connection (one) prepares them: no pipelined connections (pipelined-lanes.test.ts has those).
    db = await openDatabase(readInfraConfig(testEnv({ DB_PIPELINED_CONNECTIONS: "0" })), {
      name: "prepared-test",
      poolSize: 1,
      logger,
      inMemory: true,
    });
    await db.exec(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id int PRIMARY KEY, name text NOT NULL)`);
    await db.query(`INSERT INTO ${schema}.items (id, name) VALUES (1, 'one'), (2, 'two')`);
  });
  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  it.runIf(process.env.DATABASE_URL)("keeps a statement prepared on PostgreSQL only when asked to", async () => {
    const byId = `SELECT id, name FROM ${schema}.items WHERE id = $1`;
    const byName = `SELECT id, name FROM ${schema}.items WHERE name = $1`;
    expect((await db.query(byName, ["two"])).rows).toEqual([{ id: 2, name: "two" }]);
    expect(await preparedHere()).toEqual([]);
    for (const id of [1, 2, 1])
      expect((await db.query<{ id: number }>(byId, [id], { prepared: true })).rows[0]?.id).toBe(id);
    expect(await preparedHere()).toEqual([byId]);
    // The background connection (the outbox relay's) takes the option as well.
    const onBackground = `SELECT id FROM ${schema}.items WHERE id = $1 AND $2::int >= 0`;
    expect((await db.background.query<{ id: number }>(onBackground, [2, 1], { prepared: true })).rows).toEqual([
      { id: 2 },
    ]);
    const backgroundPrepared = await db.background.query<{ statement: string }>(
      "SELECT statement FROM pg_prepared_statements WHERE NOT from_sql",
    );
    expect(backgroundPrepared.rows.map((r) => r.statement)).toContain(onBackground);
  });

  it.runIf(process.env.DATABASE_URL)(
    "keeps a connection whose statement PostgreSQL refused, with what it has prepared",
    async () => {
      const byId = `SELECT id, name FROM ${schema}.items WHERE id = $1 AND $2::int >= 0`;
      await db.query(byId, [1, 0], { prepared: true });
      const backend = async () => (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
      const before = await backend();
      await expect(db.query(`INSERT INTO ${schema}.items (id, name) VALUES ($1, 'again')`, [1])).rejects.toMatchObject({
        code: "23505",
      });
      await expect(db.query("SELECT 1 / $1::int", [0])).rejects.toMatchObject({ code: "22012" });
      expect(await backend()).toBe(before);
      expect(await preparedHere()).toContain(byId);
    },
  );

  it.runIf(process.env.DATABASE_URL)("runs a statement something deallocated unnamed instead of failing", async () => {
    const byId = `SELECT name FROM ${schema}.items WHERE id = $1 AND $2::int < 1`;
    expect((await db.query(byId, [1, 0], { prepared: true })).rows).toEqual([{ name: "one" }]);
    await db.exec("DEALLOCATE ALL");
    expect((await db.query(byId, [2, 0], { prepared: true })).rows).toEqual([{ name: "two" }]);
    expect((await db.query(byId, [1, 0], { prepared: true })).rows).toEqual([{ name: "one" }]);
  });

  it("answers with the table's new columns after a migration altered it, in and out of a transaction", async () => {
    const all = `SELECT * FROM ${schema}.items WHERE id = $1`;
    const inTx = `SELECT * FROM ${schema}.items WHERE id = $1 AND $2::int = 0`;
    expect((await db.query(all, [1], { prepared: true })).rows).toEqual([{ id: 1, name: "one" }]);
    expect((await db.query(inTx, [1, 0], { prepared: true })).rows).toEqual([{ id: 1, name: "one" }]);
    await db.exec(`ALTER TABLE ${schema}.items ADD COLUMN note text NOT NULL DEFAULT 'new'`);

    // Outside a transaction the statement runs again unnamed at once.
    expect((await db.query(all, [1], { prepared: true })).rows).toEqual([{ id: 1, name: "one", note: "new" }]);
    // Inside one, the refusal aborts the transaction; the statement runs unnamed from then on.
    const first = await db
      .transaction((tx) => tx.query(inTx, [2, 0], { prepared: true }))
      .then(
        (r) => r.rows,
        (error: { code?: string }) => error.code,
      );
    if (db.kind === "postgres") expect(first).toBe("0A000");
    else expect(first).toEqual([{ id: 2, name: "two", note: "new" }]);
    expect((await db.transaction((tx) => tx.query(inTx, [2, 0], { prepared: true }))).rows).toEqual([
      { id: 2, name: "two", note: "new" },
    ]);
  });
});
