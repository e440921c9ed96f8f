import { mkdirSync } from "node:fs";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Database, QueryResult, Queryable, Row } from "./database.js";

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await target.query<R>(sql, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
  };
}

/**
 * Embedded PostgreSQL (one connection, in this process). `dataDir` undefined keeps the data
 * in memory. PGlite runs one statement at a time and holds other callers back while a
 * transaction is open, which gives the same isolation a pool would.
 */
export async function createPgliteDatabase(dataDir: string | undefined): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ?? "memory://", { extensions: { pg_trgm } });
  const direct = wrap(db);
  return {
    kind: "pglite",
    query: direct.query,
    exec: direct.exec,
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return db.transaction((tx) => fn(wrap(tx)));
    },
    async close() {
      await db.close();
    },
  };
}
