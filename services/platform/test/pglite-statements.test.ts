import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, pgConstraint, pgErrorCode } from "../src/db/database.js";
import { openPglite } from "../src/db/pglite.js";
import { fastPgliteDatabase } from "../src/fast-path/pglite-database.js";
import { PgliteStatements } from "../src/fast-path/pglite-statements.js";

// The platform's PGlite Database prepares each statement once (named) and then only binds and
// executes it. Its results and errors must be those of PGlite's own query(), which parses and
// plans every call: each case here runs both on the same in-memory database.

let pglite: PGlite;
let db: Database;

beforeAll(async () => {
  pglite = await openPglite(undefined);
  // The fast path's database whatever FAST_PATH says: these cases are about it.
  db = fastPgliteDatabase(pglite, {});
  await db.exec(`
    CREATE EXTENSION IF NOT EXISTS btree_gist;
    CREATE TABLE things (
      id integer PRIMARY KEY,
      name text NOT NULL UNIQUE,
      small smallint, big bigint, huge bigint, price numeric(10,2), ratio double precision, flag boolean,
      uid uuid, at timestamptz, day date, plain timestamp, span interval,
      doc json, docb jsonb, tags text[], counts integer[], raw bytea, letter char(1)
    );
    CREATE TABLE bookings (id serial PRIMARY KEY, room integer NOT NULL, during tstzrange NOT NULL,
      EXCLUDE USING gist (room WITH =, during WITH &&));
  `);
});

afterAll(async () => {
  await db?.close();
});

/** The same statement through PGlite's query() (rows only: it counts rows differently). */
async function plain(sql: string, params: unknown[] = []): Promise<unknown[]> {
  return (await pglite.query(sql, params)).rows;
}

const insertThing = `INSERT INTO things (id, name, small, big, huge, price, ratio, flag, uid, at, day, plain, span, doc, docb, tags, counts, raw, letter)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`;

describe("statements prepared once on PGlite", () => {
  it("returns the same rows and JS types as PGlite's query(), on every run", async () => {
    const values = [
      [
        1,
        "first",
        7,
        42,
        "9007199254740993",
        "12.50",
        0.25,
        true,
        "6f1c5b1e-8d0c-4a1e-9b1a-2f3c4d5e6f70",
        new Date("2026-11-22T10:11:12.345Z"),
        "2026-11-22",
        "2026-11-22 10:11:12",
        "1 day 02:00:00",
        { a: [1, "x"] },
        { b: { c: null } },
        ["x", "y, z", 'q"uote'],
        [1, 2, 3],
        new Uint8Array([0, 1, 254, 255]),
        "z",
      ],
      [
        2,
        "second",
        null,
        null,
        null,
        null,
        null,
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        [],
        null,
        null,
        null,
      ],
    ];
    for (const row of values) expect((await db.query(insertThing, row)).rowCount).toBe(1);
    // Year 1 through our timestamptz parser, and a far date.
    await db.query("UPDATE things SET at = $2 WHERE id = $1", [2, "0001-02-03 04:05:06+00"]);
    const sql = "SELECT * FROM things WHERE id = ANY($1::int[]) ORDER BY id";
    const expected = await plain(sql, [[1, 2]]);
    for (let run = 0; run < 8; run++) {
      // Past five runs PostgreSQL may switch to a generic plan: the results must not change.
      const result = await db.query(sql, [[1, 2]]);
      expect(result.rows).toEqual(expected);
      expect(result.rowCount).toBe(2);
    }
    const [first, second] = (await db.query<Record<string, unknown>>(sql, [[1, 2]])).rows;
    expect(first).toMatchObject({
      small: 7,
      big: 42,
      huge: 9007199254740993n,
      price: "12.50",
      ratio: 0.25,
      flag: true,
      day: new Date("2026-11-22T00:00:00Z"),
    });
    expect(first?.at).toEqual(new Date("2026-11-22T10:11:12.345Z"));
    expect(first?.doc).toEqual({ a: [1, "x"] });
    expect(first?.docb).toEqual({ b: { c: null } });
    expect(first?.tags).toEqual(["x", "y, z", 'q"uote']);
    expect(first?.counts).toEqual([1, 2, 3]);
    expect(first?.raw).toEqual(new Uint8Array([0, 1, 254, 255]));
    expect((second?.at as Date | undefined)?.getUTCFullYear()).toBe(1);
    expect(second?.tags).toEqual([]);
    expect(second?.doc).toBeNull();
  });

  it("counts rows as node-postgres does: written, or read", async () => {
    await db.query(insertThing, [10, "ten", ...Array(17).fill(null)]);
    await db.query(insertThing, [11, "eleven", ...Array(17).fill(null)]);
    expect((await db.query("UPDATE things SET flag = $1 WHERE id >= $2", [true, 10])).rowCount).toBe(2);
    expect((await db.query("UPDATE things SET flag = $1 WHERE id >= $2", [true, 10])).rowCount).toBe(2);
    expect((await db.query("SELECT id FROM things WHERE id >= $1", [10])).rowCount).toBe(2);
    const deleted = await db.query<{ id: number }>("DELETE FROM things WHERE id >= $1 RETURNING id", [10]);
    expect(deleted.rows.map((row) => row.id).sort()).toEqual([10, 11]);
    expect(deleted.rowCount).toBe(2);
    expect((await db.query("DELETE FROM things WHERE id >= $1 RETURNING id", [10])).rowCount).toBe(0);
    expect((await db.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });

  it("raises PostgreSQL's errors with their codes and leaves the connection usable", async () => {
    const insert = "INSERT INTO things (id, name) VALUES ($1, $2)";
    await db.query(insert, [20, "twenty"]);
    for (let run = 0; run < 3; run++) {
      const error = await db.query(insert, [21, "twenty"]).catch((e: unknown) => e);
      expect(pgErrorCode(error)).toBe("23505");
      expect(pgConstraint(error)).toBe("things_name_key");
      expect((error as { query?: string }).query).toBe(insert);
    }
    const book = "INSERT INTO bookings (room, during) VALUES ($1, tstzrange($2, $3))";
    await db.query(book, [1, "2026-11-22T10:00:00Z", "2026-11-22T11:00:00Z"]);
    const overlap = await db.query(book, [1, "2026-11-22T10:30:00Z", "2026-11-22T11:30:00Z"]).catch((e: unknown) => e);
    expect(pgErrorCode(overlap)).toBe("23P01");
    expect(pgErrorCode(await db.query("SELEC 1").catch((e: unknown) => e))).toBe("42601");
    expect(pgErrorCode(await db.query("SELECT * FROM missing_table").catch((e: unknown) => e))).toBe("42P01");
    expect(pgErrorCode(await db.query("SELECT $1::int AS n", ["nope"]).catch((e: unknown) => e))).toBe("22P02");
    expect((await db.query("SELECT $1::int AS n", ["5"])).rows).toEqual([{ n: 5 }]);
    expect((await db.query("SELECT count(*)::int AS n FROM things WHERE id = $1", [20])).rows).toEqual([{ n: 1 }]);
  });

  it("raises errors with the class, message and fields of PGlite's own, in and out of a transaction", async () => {
    const fields = (error: unknown) => {
      const e = error as Record<string, unknown> & Error;
      return { type: e.constructor.name, ...e, message: e.message };
    };
    await db.query("INSERT INTO things (id, name) VALUES ($1, $2)", [90, "ninety"]);
    const cases: [string, unknown[]][] = [
      ["INSERT INTO things (id, name) VALUES ($1, $2)", [91, "ninety"]],
      ["INSERT INTO things (id, name) VALUES ($1, $2)", [92, null]],
      ["SELECT $1::int / 0 AS n", [1]],
      ["SELECT $1::int AS n", ["nope"]],
      ["SELECT $1::text::jsonb AS d", ["{bad"]],
    ];
    for (const [sql, params] of cases) {
      const theirs = fields(await pglite.query(sql, params).catch((e: unknown) => e));
      expect(fields(await db.query(sql, params).catch((e: unknown) => e))).toEqual(theirs);
      const inTransaction = await db.transaction((tx) => tx.query(sql, params)).catch((e: unknown) => e);
      expect(fields(inTransaction)).toEqual(theirs);
    }
  });

  it("commits and rolls back transactions, and holds other statements back until the end", async () => {
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO things (id, name) VALUES ($1, $2)", [30, "thirty"]);
      expect((await tx.query("SELECT name FROM things WHERE id = $1", [30])).rows).toEqual([{ name: "thirty" }]);
    });
    expect((await db.query("SELECT name FROM things WHERE id = $1", [30])).rows).toEqual([{ name: "thirty" }]);

    const failed = db.transaction(async (tx) => {
      await tx.query("INSERT INTO things (id, name) VALUES ($1, $2)", [31, "thirty-one"]);
      throw new Error("changed my mind");
    });
    await expect(failed).rejects.toThrow("changed my mind");
    expect((await db.query("SELECT name FROM things WHERE id = $1", [31])).rows).toEqual([]);

    // A failed statement aborts the transaction: the next one says so, and nothing is kept.
    const aborted = db.transaction(async (tx) => {
      await tx.query("INSERT INTO things (id, name) VALUES ($1, $2)", [32, "thirty-two"]);
      const duplicate = await tx
        .query("INSERT INTO things (id, name) VALUES ($1, $2)", [33, "thirty"])
        .catch((e: unknown) => e);
      expect(pgErrorCode(duplicate)).toBe("23505");
      await tx.query("SELECT name FROM things WHERE id = $1", [32]);
    });
    expect(pgErrorCode(await aborted.catch((e: unknown) => e))).toBe("25P02");
    expect((await db.query("SELECT name FROM things WHERE id = $1", [32])).rows).toEqual([]);

    // A statement outside waits for the open transaction and then sees its row.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let outside: Promise<unknown> | undefined;
    const open = db.transaction(async (tx) => {
      await tx.query("INSERT INTO things (id, name) VALUES ($1, $2)", [34, "thirty-four"]);
      outside = db.query("SELECT name FROM things WHERE id = $1", [34]);
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await open;
    expect(((await outside) as { rows: unknown[] }).rows).toEqual([{ name: "thirty-four" }]);

    let kept: Parameters<Parameters<Database["transaction"]>[0]>[0] | undefined;
    await db.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept?.query("SELECT 1")).rejects.toThrow("Transaction is closed");
  });

  it("sends BEGIN with a transaction's first statement and COMMIT as one call; none for an empty one", async () => {
    // Statements go through the raw stream, COMMIT through the parsed one: count both.
    const calls: string[] = [];
    const call = (message: Uint8Array) =>
      calls.push(new TextDecoder().decode(message).includes("BEGIN") ? "begin+statement" : "call");
    const original = pglite.execProtocolStream.bind(pglite);
    const originalRaw = pglite.execProtocolRawStream.bind(pglite);
    pglite.execProtocolStream = (message, options) => {
      call(message);
      return original(message, options);
    };
    pglite.execProtocolRawStream = (message, options) => {
      call(message);
      return originalRaw(message, options);
    };
    try {
      // Prepared before counting.
      await db.query("SELECT count(*) FROM things");
      await db.query("SELECT txid_current()::text AS id");
      calls.length = 0;
      const ids = await db.transaction(async (tx) => {
        const first = await tx.query<{ id: string }>("SELECT txid_current()::text AS id");
        await tx.query("SELECT count(*) FROM things");
        const second = await tx.query<{ id: string }>("SELECT txid_current()::text AS id");
        return [first.rows[0]?.id, second.rows[0]?.id];
      });
      // Both statements ran in one transaction, the first included.
      expect(ids[0]).toBe(ids[1]);
      expect(calls).toEqual(["begin+statement", "call", "call", "call"]);
      calls.length = 0;
      await db.transaction(async () => undefined);
      expect(calls).toEqual([]);
    } finally {
      pglite.execProtocolStream = original;
      pglite.execProtocolRawStream = originalRaw;
    }
  });

  it("rolls back a transaction whose failed statement was caught, and says so at its end", async () => {
    const caught = db.transaction(async (tx) => {
      await tx.query("INSERT INTO things (id, name) VALUES ($1, $2)", [40, "forty"]);
      await tx.query("INSERT INTO things (id, name) VALUES ($1, $2)", [41, "forty"]).catch(() => undefined);
    });
    const error = await caught.catch((e: unknown) => e);
    expect(pgErrorCode(error)).toBe("25P02");
    expect((error as Error).message).toBe("Transaction was rolled back instead of committed");
    expect((await db.query("SELECT id FROM things WHERE id IN (40, 41)")).rows).toEqual([]);
  });

  it("runs scripts and settings inside the transaction, first statement or not", async () => {
    await db.exec("CREATE TABLE notes (id integer PRIMARY KEY)");
    // A script first: it carries the BEGIN; thrown away with the rest.
    const undone = db.transaction(async (tx) => {
      await tx.exec("CREATE TABLE scratch (id integer); INSERT INTO scratch VALUES (1)");
      await tx.query("INSERT INTO notes (id) VALUES ($1)", [1]);
      throw new Error("undo");
    });
    await expect(undone).rejects.toThrow("undo");
    expect((await db.query("SELECT to_regclass('scratch') AS t")).rows).toEqual([{ t: null }]);
    expect((await db.query("SELECT count(*)::int AS n FROM notes")).rows).toEqual([{ n: 0 }]);

    // A setting and a TRUNCATE after a statement: in the same transaction, kept on commit.
    await db.query("INSERT INTO notes (id) VALUES (2), (3)");
    const seen = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO notes (id) VALUES ($1)", [4]);
      await tx.query("SET LOCAL statement_timeout = 12345");
      const setting = await tx.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t");
      await tx.query("TRUNCATE notes");
      await tx.query("INSERT INTO notes (id) VALUES ($1)", [5]);
      return setting.rows[0]?.t;
    });
    expect(seen).toBe("12345ms");
    expect((await db.query("SELECT current_setting('statement_timeout') AS t")).rows).not.toEqual([{ t: "12345ms" }]);
    expect((await db.query("SELECT id FROM notes")).rows).toEqual([{ id: 5 }]);
  });

  it("prepares a statement again after a table changed what it returns", async () => {
    await db.exec("CREATE TABLE shapes (id integer PRIMARY KEY, name text); INSERT INTO shapes VALUES (1, 'one');");
    const sql = "SELECT * FROM shapes WHERE id = $1";
    for (let run = 0; run < 6; run++) expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, name: "one" }]);
    await db.exec("ALTER TABLE shapes ADD COLUMN sides integer DEFAULT 3");
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, name: "one", sides: 3 }]);
    await db.query("ALTER TABLE shapes ALTER COLUMN sides TYPE text");
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, name: "one", sides: "3" }]);
    // Changed behind the cache's back (as by another connection): prepared again, once.
    const statements = new PgliteStatements(pglite);
    for (let run = 0; run < 6; run++) await statements.run(sql, [1]);
    await pglite.exec("ALTER TABLE shapes DROP COLUMN name");
    expect((await statements.run(sql, [1])).rows).toEqual([{ id: 1, sides: "3" }]);
    await pglite.exec("DEALLOCATE ALL");
    expect((await statements.run(sql, [1])).rows).toEqual([{ id: 1, sides: "3" }]);
  });

  it("keeps at most its capacity of statements prepared, closing the least recently used", async () => {
    const statements = new PgliteStatements(pglite, 3);
    const prepared = async () =>
      (
        await pglite.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'voiceops_%'",
        )
      ).rows[0]?.n;
    const before = await prepared();
    for (let i = 0; i < 10; i++) {
      expect((await statements.run(`SELECT $1::int + ${i} AS n`, [1])).rows).toEqual([{ n: 1 + i }]);
    }
    expect(statements.size).toBe(3);
    // The last eviction is closed with the next message.
    await statements.run("SELECT $1::int + 9 AS n", [1]);
    expect(await prepared()).toBe((before ?? 0) + 3);
    // An evicted statement is prepared again.
    expect((await statements.run("SELECT $1::int + 0 AS n", [1])).rows).toEqual([{ n: 1 }]);
    expect(statements.size).toBe(3);
  });
});
