import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { testEnv } from "../src/testing/index.js";

/**
 * A loopback proxy in front of PostgreSQL that counts the server's ReadyForQuery messages (one
 * per Sync or simple query the client sent: one per statement) and the round trips: the times
 * the client sent something after the server had answered.
 */
async function roundTripCounter(
  target: URL,
): Promise<{ url: string; readyCount(): number; roundTrips(): number; close(): Promise<void> }> {
  let ready = 0;
  let roundTrips = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    let answered = false;
    client.on("data", () => {
      if (started && answered) roundTrips += 1;
      answered = false;
    });
    upstream.on("data", (chunk: Buffer) => {
      answered = true;
      pending = Buffer.concat([pending, chunk]);
      // Backend messages: a type byte, then a length that counts itself.
      while (pending.length >= 5) {
        const length = pending.readUInt32BE(1);
        if (pending.length < 1 + length) break;
        if (pending[0] === 0x5a) {
          // The first ReadyForQuery ends the start-up, which is no statement's.
          if (started) ready += 1;
          started = true;
        }
        pending = pending.subarray(1 + length);
      }
    });
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    readyCount: () => ready,
    roundTrips: () => roundTrips,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// Transactions against the run's database (PostgreSQL, or PGlite in memory): what they keep and
// when they throw; on PostgreSQL also how many round trips they take.
describe("transactions", () => {
  const schema = `transactions_test_${process.pid}`;
  const logger = createLogger("silent");
  let db: Database;
  let counter: Awaited<ReturnType<typeof roundTripCounter>> | undefined;

  const names = async () =>
    (await db.query<{ name: string }>(`SELECT name FROM ${schema}.items ORDER BY id`)).rows.map((row) => row.name);
  const insertItem = `INSERT INTO ${schema}.items (id, name) VALUES ($1, $2) RETURNING id, name`;
  const insertNote = `INSERT INTO ${schema}.notes (item_id, note) VALUES ($1, $2)`;

  beforeAll(async () => {
    const env = testEnv();
    if (env.DATABASE_URL) {
      counter = await roundTripCounter(new URL(env.DATABASE_URL));
      env.DATABASE_URL = counter.url;
    }
    db = await openDatabase(readInfraConfig(env), { name: "transactions-test", poolSize: 1, logger, inMemory: true });
    await db.exec(`CREATE SCHEMA ${schema};
      CREATE TABLE ${schema}.items (id bigint PRIMARY KEY, name text NOT NULL);
      CREATE TABLE ${schema}.notes (item_id bigint NOT NULL REFERENCES ${schema}.items (id), note text NOT NULL UNIQUE)`);
  });
  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
    await counter?.close();
  });

  it("commits the statements and those left for the commit together, the latter after the others", async () => {
    const result = await db.transaction(async (tx) => {
      // Left for the commit before the row it references exists: it runs last.
      tx.atCommit({ sql: insertNote, params: [1, "first note"], options: { prepared: true } });
      const inserted = await tx.query<{ id: number; name: string }>(insertItem, [1, "one"], { prepared: true });
      const again = await tx.query<{ id: number; name: string }>(insertItem, [2, "two"], { prepared: true });
      return [...inserted.rows, ...again.rows];
    });
    // bigint comes back as a number, as from any other statement.
    expect(result).toEqual([
      { id: 1, name: "one" },
      { id: 2, name: "two" },
    ]);
    expect(await names()).toEqual(["one", "two"]);
    expect((await db.query(`SELECT item_id, note FROM ${schema}.notes`)).rows).toEqual([
      { item_id: 1, note: "first note" },
    ]);
  });

  it("rolls back everything when a statement left for the commit fails, and says why", async () => {
    const failed = db.transaction(async (tx) => {
      await tx.query(insertItem, [3, "three"], { prepared: true });
      tx.atCommit({ sql: insertNote, params: [3, "first note"], options: { prepared: true } });
    });
    await expect(failed).rejects.toMatchObject({ code: "23505" });
    expect(await names()).toEqual(["one", "two"]);
    // The connection is fine for the next transaction.
    await db.transaction(async (tx) => {
      await tx.query(insertItem, [3, "three"], { prepared: true });
      tx.atCommit({ sql: insertNote, params: [3, "third note"], options: { prepared: true } });
    });
    expect(await names()).toEqual(["one", "two", "three"]);
  });

  it("rolls back when the first statement fails, and keeps nothing left for the commit", async () => {
    const failed = db.transaction(async (tx) => {
      tx.atCommit({ sql: insertNote, params: [1, "never"], options: { prepared: true } });
      await tx.query(insertItem, [1, "one again"], { prepared: true });
    });
    await expect(failed).rejects.toMatchObject({ code: "23505" });
    expect((await db.query(`SELECT count(*)::int AS n FROM ${schema}.notes WHERE note = 'never'`)).rows).toEqual([
      { n: 0 },
    ]);
  });

  it("refuses to commit a transaction whose failed statement the caller caught", async () => {
    const failed = db.transaction(async (tx) => {
      await tx.query(insertItem, [4, "four"], { prepared: true });
      await tx.query(insertItem, [1, "duplicate"], { prepared: true }).catch(() => undefined);
      tx.atCommit({ sql: insertNote, params: [4, "fourth note"], options: { prepared: true } });
    });
    await expect(failed).rejects.toMatchObject({ code: "25P02" });
    // With nothing left for the commit, it is the COMMIT that finds the transaction aborted.
    const aborted = db.transaction(async (tx) => {
      await tx.query(insertItem, [4, "four"], { prepared: true });
      await tx.query(insertItem, [1, "duplicate"], { prepared: true }).catch(() => undefined);
    });
    await expect(aborted).rejects.toMatchObject({ code: "25P02" });
    expect(await names()).toEqual(["one", "two", "three"]);
  });

  it("runs a statement left for the commit that only the commit runs", async () => {
    await db.transaction(async (tx) => void tx.atCommit({ sql: insertItem, params: [5, "five"] }));
    expect(await names()).toEqual(["one", "two", "three", "five"]);
  });

  it.runIf(process.env.DATABASE_URL)(
    "sends BEGIN with the first statement and COMMIT with those left for it, and nothing for a transaction that runs nothing",
    async () => {
      const write = (id: number) =>
        db.transaction(async (tx) => {
          const inserted = await tx.query(insertItem, [id, `item ${id}`], { prepared: true });
          tx.atCommit({ sql: insertNote, params: [id, `note ${id}`], options: { prepared: true } });
          return inserted.rows;
        });
      await write(10);
      const before = { ready: counter!.readyCount(), roundTrips: counter!.roundTrips() };
      expect(await write(11)).toEqual([{ id: 11, name: "item 11" }]);
      // BEGIN, the insert, the note's insert and COMMIT, in two round trips.
      expect(counter!.readyCount() - before.ready).toBe(4);
      expect(counter!.roundTrips() - before.roundTrips).toBe(2);
      // A transaction that runs nothing sends nothing.
      await db.transaction(async () => undefined);
      expect(counter!.readyCount() - before.ready).toBe(4);
      expect(counter!.roundTrips() - before.roundTrips).toBe(2);
    },
  );

  it("runs a statement left for the commit unnamed after PostgreSQL refused its prepared form", async () => {
    const note = `INSERT INTO ${schema}.notes (item_id, note) SELECT id, $2 FROM ${schema}.items WHERE id = $1 RETURNING *`;
    await db.transaction(
      async (tx) => void tx.atCommit({ sql: note, params: [2, "before"], options: { prepared: true } }),
    );
    await db.exec(`ALTER TABLE ${schema}.notes ADD COLUMN added text NOT NULL DEFAULT 'new'`);
    const first = await db
      .transaction(async (tx) => void tx.atCommit({ sql: note, params: [2, "refused"], options: { prepared: true } }))
      .then(
        () => "committed",
        (error: { code?: string }) => error.code,
      );
    // PGlite prepares the statement again at once; PostgreSQL's refusal aborts the transaction.
    if (db.kind === "postgres") expect(first).toBe("0A000");
    else expect(first).toBe("committed");
    await db.transaction(
      async (tx) => void tx.atCommit({ sql: note, params: [2, "after"], options: { prepared: true } }),
    );
    const notes = (
      await db.query<{ note: string }>(`SELECT note FROM ${schema}.notes WHERE item_id = 2 ORDER BY note`)
    ).rows.map((row) => row.note);
    expect(notes).toEqual(db.kind === "postgres" ? ["after", "before"] : ["after", "before", "refused"]);
  });

  it("commits or rolls back each of the transactions issued together on its own", async () => {
    // Issued in one turn of the event loop (on PGlite they run as one batch): the second fails
    // on its statement left for the commit, the fourth in its function.
    const write = (id: number, note: string, fail = false) =>
      db.transaction(async (tx) => {
        const inserted = await tx.query<{ id: number }>(insertItem, [id, `item ${id}`], { prepared: true });
        tx.atCommit({ sql: insertNote, params: [id, note], options: { prepared: true } });
        if (fail) throw new Error(`item ${id} refused`);
        return inserted.rows[0]?.id;
      });
    const settled = await Promise.allSettled([
      write(20, "note 20"),
      write(21, "first note"),
      write(22, "note 22"),
      write(23, "note 23", true),
      write(24, "note 24"),
    ]);
    expect(
      settled.map((result) =>
        result.status === "fulfilled"
          ? result.value
          : ((result.reason as { code?: string; message: string }).code ?? (result.reason as Error).message),
      ),
    ).toEqual([20, "23505", 22, "item 23 refused", 24]);
    const kept = await db.query<{ id: number }>(
      `SELECT i.id FROM ${schema}.items i JOIN ${schema}.notes n ON n.item_id = i.id WHERE i.id >= 20 ORDER BY i.id`,
    );
    expect(kept.rows.map((row) => row.id)).toEqual([20, 22, 24]);
    expect((await db.query(`SELECT count(*)::int AS n FROM ${schema}.items WHERE id IN (21, 23)`)).rows).toEqual([
      { n: 0 },
    ]);
  });

  it("finishes a transaction that waits for the answer to one issued before it in the same turn", async () => {
    // On PGlite both run in one batch, whose answers are held until it ends: the second would
    // wait for ever if the batch kept holding them past its turn.
    const first = db.transaction(
      async (tx) => (await tx.query<{ id: number }>(insertItem, [30, "item 30"], { prepared: true })).rows[0]?.id,
    );
    const second = db.transaction(async (tx) => {
      const id = await first;
      return (await tx.query<{ id: number }>(insertItem, [Number(id) + 1, "item 31"], { prepared: true })).rows[0]?.id;
    });
    expect(await Promise.all([first, second])).toEqual([30, 31]);
  });
});
