import type * as Pg from "pg";
import type { Database, QueryResult, Queryable, Row } from "./database.js";

type PgPackage = typeof import("pg").default;

// bigint (int8) columns hold counts and cents; they fit a JS number.
const INT8_OID = 20;

function wrap(client: Pg.PoolClient | Pg.Pool): Queryable {
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

function createPool(pg: PgPackage, options: PostgresOptions, max: number, applicationName: string): Pg.Pool {
  const types = {
    getTypeParser(oid: number, format?: "text" | "binary") {
      if (oid === INT8_OID) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({
    connectionString: options.url,
    max,
    application_name: applicationName,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 15_000,
    types,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on("error", (error) => options.onError?.(error));
  // Nor may a client that has just been handed out: the pool drops its own listener before the
  // caller can add one, and a termination notice read in the same chunk as the client's last
  // answer would be an unhandled 'error' event. Every client keeps this listener for life; the
  // failure itself reaches the caller through its next query (and the pool discards the client).
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  return pool;
}

/** A pool on PostgreSQL. The `pg` package is loaded here, so embedded mode (PGlite) never loads it. */
export async function createPostgresDatabase(options: PostgresOptions): Promise<Database> {
  const { default: pg } = await import("pg");
  const pool = createPool(pg, options, options.poolSize, options.applicationName);
  // One connection for background work, opened on first use (see Database.background).
  let backgroundPool: Pg.Pool | undefined;
  let backgroundConnection: Queryable | undefined;
  const connection = (): Queryable => {
    if (!backgroundConnection) {
      backgroundPool = createPool(pg, options, 1, `${options.applicationName}-background`);
      backgroundConnection = wrap(backgroundPool);
    }
    return backgroundConnection;
  };
  const background: Queryable = {
    query: (sql, params) => connection().query(sql, params),
    exec: (sql) => connection().exec(sql),
  };
  const direct = wrap(pool);
  return {
    kind: "postgres",
    query: direct.query,
    exec: direct.exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // A checked-out client has no listener of the pool's: without this one, a connection
      // terminated between two statements would be an unhandled 'error' event, ending the process.
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
        options.onError?.(error);
      };
      client.on("error", onError);
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        if (!broken) await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.removeListener("error", onError);
        // A client whose connection failed is destroyed, not handed to the next caller.
        client.release(broken);
      }
    },
    background,
    async close() {
      await Promise.all([pool.end(), backgroundPool?.end()]);
    },
  };
}
