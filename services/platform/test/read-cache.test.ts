import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database, QueryOptions, QueryResult } from "../src/db/database.js";
import { openPglite, pgliteDatabase } from "../src/db/pglite.js";
import { ReadCache } from "../src/db/read-cache.js";

// Embedded PGlite answers reads marked cacheable from the results it kept since the last write
// through the Database. To see whether an answer came from the cache or from the database, the
// tests change a row behind the Database's back, on the PGlite handle underneath it: only a kept
// result still shows the old value.

let pglite: PGlite;
let db: Database;
const read = `SELECT id, name, raw, tags, doc FROM items WHERE id = $1`;
const cacheable = { cacheable: true };

async function nameOf(
  target: Pick<Database, "query">,
  id = 1,
  options: QueryOptions = cacheable,
): Promise<string | undefined> {
  return (await target.query<{ name: string }>(read, [id], options)).rows[0]?.name;
}

/** Changes the row without the Database knowing. */
async function behindTheBack(name: string, id = 1): Promise<void> {
  await pglite.query("UPDATE items SET name = $2 WHERE id = $1", [id, name]);
}

beforeAll(async () => {
  pglite = await openPglite(undefined);
  db = pgliteDatabase(pglite);
  await db.exec(`CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL, raw bytea, tags text[], doc jsonb);
    CREATE TABLE other (id integer PRIMARY KEY)`);
});

afterAll(async () => {
  await db?.close();
});

beforeEach(async () => {
  await db.query("DELETE FROM items");
  await db.query(
    "INSERT INTO items VALUES (1, 'first', '\\x0102', '{a,b}', '{\"k\": [1]}'), (2, 'second', NULL, NULL, NULL)",
  );
});

describe("the read cache of embedded PGlite", () => {
  it("answers a cacheable read again from the kept result, until any write through the Database", async () => {
    expect(await nameOf(db)).toBe("first");
    await behindTheBack("changed");
    expect(await nameOf(db)).toBe("first");
    // A write to another table still ends every kept result.
    await db.query("INSERT INTO other VALUES (1) ON CONFLICT DO NOTHING");
    expect(await nameOf(db)).toBe("changed");
  });

  it("keeps a result per statement and parameters", async () => {
    expect(await nameOf(db, 1)).toBe("first");
    await behindTheBack("changed", 2);
    expect(await nameOf(db, 2)).toBe("changed");
  });

  it("does not answer reads that are not marked cacheable from it", async () => {
    expect(await nameOf(db)).toBe("first");
    await behindTheBack("changed");
    expect(await nameOf(db, 1, {})).toBe("changed");
  });

  it("counts every statement that is not a cacheable read as a write, reads included", async () => {
    expect(await nameOf(db)).toBe("first");
    await behindTheBack("changed");
    // A plain read may call a function that writes: it ends the kept results too.
    await db.query("SELECT count(*) FROM other");
    expect(await nameOf(db)).toBe("changed");
  });

  it("ends every kept result with a transaction, committed or rolled back, and keeps nothing read inside one", async () => {
    expect(await nameOf(db)).toBe("first");
    await db.transaction(async (tx) => {
      await tx.query("UPDATE items SET name = 'in transaction' WHERE id = 1");
      // Inside a transaction the option is ignored: the transaction sees its own write.
      expect(await nameOf(tx)).toBe("in transaction");
    });
    expect(await nameOf(db)).toBe("in transaction");

    await expect(
      db.transaction(async (tx) => {
        await tx.query("UPDATE items SET name = 'rolled back' WHERE id = 1");
        expect(await nameOf(tx)).toBe("rolled back");
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await nameOf(db)).toBe("in transaction");
  });

  it("ends every kept result with a script (exec)", async () => {
    expect(await nameOf(db)).toBe("first");
    await behindTheBack("changed");
    await db.exec("SELECT 1");
    expect(await nameOf(db)).toBe("changed");
  });

  it("does not keep a read that was issued before a write it ran beside", async () => {
    const before = nameOf(db);
    const write = db.query("UPDATE items SET name = 'written' WHERE id = 1");
    // PGlite runs them in the order issued: the read saw the row before the write.
    expect(await before).toBe("first");
    await write;
    expect(await nameOf(db)).toBe("written");
  });

  it("hands out frozen results (callers share them), byte arrays as they are", async () => {
    const first = await db.query<{ name: string; raw: Uint8Array; tags: string[]; doc: { k: number[] } }>(
      read,
      [1],
      cacheable,
    );
    const again = await db.query<{ name: string; raw: Uint8Array; tags: string[]; doc: { k: number[] } }>(
      read,
      [1],
      cacheable,
    );
    expect(again).toBe(first);
    const row = first.rows[0];
    if (!row) throw new Error("no row");
    expect(() => {
      row.name = "mutated";
    }).toThrow(TypeError);
    expect(() => row.tags.push("c")).toThrow(TypeError);
    expect(() => row.doc.k.push(2)).toThrow(TypeError);
    expect([...row.raw]).toEqual([1, 2]);
    expect(await nameOf(db)).toBe("first");
  });

  it("is off with readCache: false (EMBEDDED_READ_CACHE=off)", async () => {
    const uncached = pgliteDatabase(pglite, { readCache: false });
    expect(await nameOf(uncached)).toBe("first");
    await behindTheBack("changed");
    expect(await nameOf(uncached)).toBe("changed");
  });
});

describe("ReadCache", () => {
  it("keeps at most its capacity, dropping the least recently used", async () => {
    const cache = new ReadCache(2);
    let runs = 0;
    const run = async () => ({ rows: [{ run: ++runs }], rowCount: 1 });
    await cache.read("a", [], run);
    await cache.read("b", [], run);
    await cache.read("a", [], run); // a is now the most recently used
    await cache.read("c", [], run); // drops b
    expect(cache.size).toBe(2);
    expect(runs).toBe(3);
    expect((await cache.read("a", [], run)).rows).toEqual([{ run: 1 }]);
    expect((await cache.read("b", [], run)).rows).toEqual([{ run: 4 }]);
  });

  it("keeps about its byte budget, and no result larger than 256 KB", async () => {
    const cache = new ReadCache(1_000, 10_000);
    let runs = 0;
    const row = (size: number) => async () => ({ rows: [{ run: ++runs, text: "x".repeat(size) }], rowCount: 1 });
    for (const key of ["a", "b", "c"]) await cache.read(key, [], row(4_000));
    // About 12 KB asked of 10 KB: the oldest went.
    expect(cache.size).toBe(2);
    await cache.read("a", [], row(4_000));
    expect(runs).toBe(4);

    const big = new ReadCache();
    await big.read("big", [], row(300_000));
    await big.read("big", [], row(300_000));
    expect(big.size).toBe(0);
    expect(runs).toBe(6);
  });

  it("tells parameters apart by value and type", async () => {
    const cache = new ReadCache();
    let runs = 0;
    const run = async () => ({ rows: [{ run: ++runs }], rowCount: 1 });
    await cache.read("q", [1], run);
    await cache.read("q", ["1"], run);
    await cache.read("q", [null], run);
    await cache.read("q", [1], run);
    expect(runs).toBe(3);
    // Parameters JSON cannot write go to the database every time.
    await cache.read("q", [1n], run);
    await cache.read("q", [1n], run);
    expect(runs).toBe(5);
  });

  it("keeps nothing read while a write was issued, and a failed write still ends the kept results", async () => {
    const cache = new ReadCache();
    let runs = 0;
    let release: () => void = () => undefined;
    const slowRead = cache.read(
      "q",
      [],
      () =>
        new Promise<QueryResult<unknown>>(
          (resolve) => (release = () => resolve({ rows: [{ run: ++runs }], rowCount: 1 })),
        ),
    );
    // The write is issued and ends while the read is still running: the read's result is older.
    await cache.write(async () => "done");
    release();
    await slowRead;
    await cache.read("q", [], async () => ({ rows: [{ run: ++runs }], rowCount: 1 }));
    expect(runs).toBe(2);

    await expect(
      cache.write(async () => {
        throw new Error("failed");
      }),
    ).rejects.toThrow("failed");
    expect(cache.size).toBe(0);
  });
});
