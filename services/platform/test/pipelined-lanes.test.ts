import { Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PipelinedLanes } from "../src/db/pg-pipelined.js";
import { PgTransaction } from "../src/db/pg-transaction.js";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { testEnv } from "../src/testing/index.js";

/** A socket that counts the writes it makes (Writable's `_write` and `_writev`, its implementers' API). */
class CountingSocket extends Socket {
  writes = 0;
  override _write(...args: Parameters<Socket["_write"]>) {
    this.writes += 1;
    super._write(...args);
  }
  override _writev(...args: Parameters<NonNullable<Socket["_writev"]>>) {
    this.writes += 1;
    super._writev?.(...args);
  }
}

// The reads by key (statements run `prepared` and `cacheable` outside transactions) on PostgreSQL
// go on a few connections in pg's pipeline mode; everything else stays on the pool.
describe.runIf(process.env.DATABASE_URL)("pipelined lookups on PostgreSQL", () => {
  const schema = `pipelined_test_${process.pid}`;
  const name = `pipelined-test-${process.pid}`;
  let db: Database;
  const backendOf = `SELECT pg_backend_pid() AS pid, $1::int AS n`;
  const LOOKUP = { prepared: true, cacheable: true } as const;

  const pipelinedBackends = async () =>
    (
      await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [
        `${name}-pipelined`,
      ])
    ).rows.map((row) => row.pid);

  beforeAll(async () => {
    db = await openDatabase(readInfraConfig(testEnv({ DB_PIPELINED_CONNECTIONS: "2" })), {
      name,
      poolSize: 4,
      logger: createLogger("silent"),
    });
    await db.exec(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id int PRIMARY KEY, name text NOT NULL)`);
    await db.query(`INSERT INTO ${schema}.items SELECT i, 'item ' || i FROM generate_series(1, 500) AS i`);
  });
  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  it("answers 500 concurrent lookups each with its own row, on at most two connections", async () => {
    const byId = `SELECT id, name FROM ${schema}.items WHERE id = $1`;
    const ids = Array.from({ length: 500 }, (_, index) => 500 - index);
    const results = await Promise.all(ids.map((id) => db.query<{ id: number; name: string }>(byId, [id], LOOKUP)));
    expect(results.map((result) => result.rows)).toEqual(ids.map((id) => [{ id, name: `item ${id}` }]));
    const backends = await Promise.all(
      ids.map(async (n) => (await db.query<{ pid: number; n: number }>(backendOf, [n], LOOKUP)).rows[0]),
    );
    expect(backends.map((row) => row?.n)).toEqual(ids);
    const used = new Set(backends.map((row) => row?.pid));
    expect(used.size).toBeGreaterThanOrEqual(1);
    expect(used.size).toBeLessThanOrEqual(2);
    expect(new Set(await pipelinedBackends())).toEqual(used);
    // An unprepared read, and a prepared write, run on the pool: a write may wait for a lock.
    const unprepared = await db.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
    expect(used.has(unprepared.rows[0]?.pid)).toBe(false);
    const write = await db.query<{ pid: number }>(
      `UPDATE ${schema}.items SET name = name WHERE id = $1 RETURNING pg_backend_pid() AS pid`,
      [1],
      { prepared: true },
    );
    expect(used.has(write.rows[0]?.pid)).toBe(false);
  });

  it("fails only the statement PostgreSQL refused, not those sent beside it", async () => {
    const divide = `SELECT 100 / $1::int AS q`;
    const divisors = [5, 0, 4, 0, 2, 1];
    const outcomes = await Promise.allSettled(
      divisors.map((divisor) => db.query<{ q: number }>(divide, [divisor], LOOKUP)),
    );
    expect(
      outcomes.map((outcome) =>
        outcome.status === "fulfilled" ? outcome.value.rows[0]?.q : (outcome.reason as { code?: string }).code,
      ),
    ).toEqual([20, "22012", 25, "22012", 50, 100]);
  });

  it("answers with a table's new columns after a migration altered it", async () => {
    await db.exec(`CREATE TABLE ${schema}.altered (id int PRIMARY KEY)`);
    await db.query(`INSERT INTO ${schema}.altered VALUES (1)`);
    const all = `SELECT * FROM ${schema}.altered WHERE id = $1`;
    const twice = () => Promise.all([1, 1].map((id) => db.query(all, [id], LOOKUP)));
    expect((await twice()).map((result) => result.rows)).toEqual([[{ id: 1 }], [{ id: 1 }]]);
    await db.exec(`ALTER TABLE ${schema}.altered ADD COLUMN note text NOT NULL DEFAULT 'new'`);
    expect((await twice()).map((result) => result.rows)).toEqual([[{ id: 1, note: "new" }], [{ id: 1, note: "new" }]]);
  });

  it("replaces a connection the server ended, and the lookups after it are answered", async () => {
    const before = await pipelinedBackends();
    expect(before.length).toBeGreaterThan(0);
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
      `${name}-pipelined`,
    ]);
    // A statement sent before the client has read the termination fails with it; the ones after
    // go on a new connection.
    const deadline = Date.now() + 5_000;
    let answered: number | undefined;
    while (answered === undefined && Date.now() < deadline) {
      answered = await db.query<{ n: number }>(backendOf, [7], LOOKUP).then(
        (result) => result.rows[0]?.n,
        () => undefined,
      );
    }
    expect(answered).toBe(7);
    const results = await Promise.all(
      [1, 2, 3].map((id) => db.query<{ id: number }>(`SELECT id FROM ${schema}.items WHERE id = $1`, [id], LOOKUP)),
    );
    expect(results.map((result) => result.rows[0]?.id)).toEqual([1, 2, 3]);
    const after = await pipelinedBackends();
    expect(after.some((pid) => before.includes(pid))).toBe(false);
  });

  it("sends the lookups given to a connection in one turn in one write", async () => {
    const sockets: CountingSocket[] = [];
    const lanes = new PipelinedLanes(
      () => {
        const socket = new CountingSocket();
        sockets.push(socket);
        const client = new pg.Client({
          connectionString: process.env.DATABASE_URL,
          pipeline: true,
          stream: () => socket,
        });
        return { client, socket };
      },
      1,
      () => undefined,
    );
    try {
      await lanes.run({ text: "SELECT 1" });
      const socket = sockets[0] as CountingSocket;
      const before = socket.writes;
      const ids = Array.from({ length: 50 }, (_, index) => index);
      const results = await Promise.all(
        ids.map((n) => lanes.run({ name: `lane_write_${process.pid}`, text: "SELECT $1::int AS n", values: [n] })),
      );
      expect(results.map((result) => result.rows[0]?.n)).toEqual(ids);
      expect(sockets).toHaveLength(1);
      // pg alone writes each statement as it gets it: 50 writes.
      expect(socket.writes - before).toBe(1);
    } finally {
      await lanes.close();
    }
  });
});

// A transaction on a client in pipeline mode (PgTransaction, as the pool's transactions run).
describe.runIf(process.env.DATABASE_URL)("transactions in pipeline mode", () => {
  it("sends BEGIN with the first statement, and the statements left for the commit with COMMIT, in one write each", async () => {
    const socket = new CountingSocket();
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL, pipeline: true, stream: () => socket });
    await client.connect();
    try {
      await client.query("CREATE TEMPORARY TABLE notes (n int NOT NULL)");
      const before = socket.writes;
      const tx = new PgTransaction(client, socket, () => undefined);
      const first = await tx.run({ text: "INSERT INTO notes VALUES ($1) RETURNING n", values: [1] });
      tx.atCommit({ text: "INSERT INTO notes VALUES ($1)", values: [2] });
      tx.atCommit({ text: "INSERT INTO notes VALUES ($1)", values: [3] });
      await tx.commit();
      expect(first.rows).toEqual([{ n: 1 }]);
      // pg alone writes BEGIN, COMMIT and each statement as it gets them: five writes.
      expect(socket.writes - before).toBe(2);
      expect((await client.query("SELECT n FROM notes ORDER BY n")).rows).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    } finally {
      await client.end();
    }
  });
});
