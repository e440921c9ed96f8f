import pg from "pg";
import type { Database, QueryResult, Queryable, Row } from "./database.js";

// bigint (int8) columns hold counts and cents; they fit a JS number.
const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

function wrap(client: pg.PoolClient | pg.Pool): Queryable {
  return {
    async query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await client.query(sql, params as unknown[] | undefined);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

export interface PostgresOptions {
  url: string;
  poolSize: number;
  applicationName: string;
  onError?: (error: Error) => void;
}

export function createPostgresDatabase(options: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    application_name: options.applicationName,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 15_000,
    types,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on("error", (error) => options.onError?.(error));
  const direct = wrap(pool);
  return {
    kind: "postgres",
    query: direct.query,
    exec: direct.exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
