import { createHash } from "node:crypto";
import type * as Pg from "pg";
import {
  isDatabaseError,
  pgErrorCode,
  type Database,
  type QueryOptions,
  type QueryResult,
  type Queryable,
  type Row,
  type Transaction,
} from "./database.js";
import { PipelinedLanes } from "./pg-pipelined.js";
import { socketClient, socketOf, type SocketClient } from "./pg-socket-client.js";
import { PgTransaction } from "./pg-transaction.js";
import { watchPool } from "../metrics.js";

type PgPackage = typeof import("pg").default;

// bigint (int8) columns hold counts and cents; they fit a JS number.
const INT8_OID = 20;

/** At most this many statement texts are run prepared (each connection prepares those it runs); later ones run unnamed. */
const MAX_PREPARED = 256;
/**
 * Refusals of a prepared statement that running it unnamed avoids: 0A000 "cached plan must not
 * change result type" (a table it reads was altered), 26000 the statement is gone from the
 * connection (DEALLOCATE ALL or DISCARD ALL from elsewhere, a pooler's reset).
 */
const PREPARED_REFUSALS = new Set(["0A000", "26000"]);

/**
 * Names of the statements run with `prepared`, by text: the same name on every connection, so
 * each connection prepares a statement the first time it runs it. A statement whose prepared
 * form was refused (PREPARED_REFUSALS) maps to "" and runs unnamed from then on.
 */
const statementNames = new Map<string, string>();

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    if (statementNames.size >= MAX_PREPARED) return "";
    name = `vo_${createHash("sha256").update(sql).digest("base64url").slice(0, 32)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** Runs one statement on a connection (a transaction's) or on any of a pool's. */
type Run = (config: Pg.QueryConfig, options?: QueryOptions) => Promise<Pg.QueryResult>;

/**
 * Runs statements on a pool's connections. pg-pool's own query() closes the connection a
 * statement failed on, whatever the failure: a unique violation or a statement timeout would cost
 * a new connection (and its prepared statements). Here only a connection that broke is dropped.
 */
function onPool(pool: Pg.Pool): Run {
  return async (config) => {
    const client = await pool.connect();
    try {
      const result = await client.query(config);
      client.release();
      return result;
    } catch (error) {
      client.release(isDatabaseError(error) ? undefined : (error as Error));
      throw error;
    }
  };
}

/** A statement as pg runs it: under its prepared name when it is run prepared. */
function queryConfig(
  sql: string,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): Pg.QueryConfig {
  const values = params as unknown[] | undefined;
  const name = options?.prepared ? statementName(sql) : "";
  return name === "" ? { text: sql, values } : { name, text: sql, values };
}

/**
 * When PostgreSQL refused a prepared statement's prepared form, has it run unnamed from now on;
 * whether it did. A migration changed the columns it answers (another replica's, during a
 * rolling update), or something deallocated it; PostgreSQL refuses it on every connection that
 * prepared it.
 */
function unnameRefused(config: Pg.QueryConfig, error: unknown): boolean {
  if (!config.name || !PREPARED_REFUSALS.has(pgErrorCode(error) ?? "")) return false;
  statementNames.set(config.text, "");
  return true;
}

function wrap(run: Run, inTransaction: boolean): Queryable {
  return {
    async query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      const config = queryConfig(sql, params, options);
      let result: Pg.QueryResult;
      try {
        result = await run(config, options);
      } catch (error) {
        // Once more now, unnamed, where no transaction was aborted.
        if (!unnameRefused(config, error) || inTransaction) throw error;
        result = await run({ text: sql, values: config.values });
      }
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await run({ text: sql });
    },
  };
}

interface PostgresOptions {
  url: string;
  poolSize: number;
  /**
   * Connections in pg's pipeline mode for the reads run `prepared` and `cacheable` outside
   * transactions; 0 runs them on the pool and leaves pg's pipeline mode off (transactions wait
   * for each answer).
   */
  pipelinedConnections: number;
  applicationName: string;
  onError?: (error: Error) => void;
}

/** pg's type parsers, but bigint columns as numbers. */
function typeParsers(pg: PgPackage): Pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: "text" | "binary") {
      if (oid === INT8_OID) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  } as Pg.CustomTypesConfig;
}

/** What every connection of the process is opened with: the server, its name there, time limits and type parsers. */
function connectionConfig(
  options: PostgresOptions,
  applicationName: string,
  types: Pg.CustomTypesConfig,
): Pg.ClientConfig {
  return {
    connectionString: options.url,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 15_000,
    types,
  };
}

function createPool(
  pg: PgPackage,
  Client: new (config?: Pg.ClientConfig) => SocketClient,
  types: Pg.CustomTypesConfig,
  options: PostgresOptions,
  max: number,
  applicationName: string,
): Pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(options, applicationName, types),
    // Transactions send BEGIN with their first statement and COMMIT with the last (pg-transaction.ts).
    pipeline: options.pipelinedConnections > 0,
    Client,
    max,
    idleTimeoutMillis: 30_000,
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
  const types = typeParsers(pg);
  const Client = socketClient(pg);
  const pool = createPool(pg, Client, types, options, options.poolSize, options.applicationName);
  const unwatch = watchPool(options.applicationName, pool);
  // One connection for background work, opened on first use (see Database.background).
  let backgroundPool: Pg.Pool | undefined;
  let backgroundConnection: Queryable | undefined;
  const connection = (): Queryable => {
    if (!backgroundConnection) {
      backgroundPool = createPool(pg, Client, types, options, 1, `${options.applicationName}-background`);
      backgroundConnection = wrap(onPool(backgroundPool), false);
    }
    return backgroundConnection;
  };
  const background: Queryable = {
    query: (sql, params, queryOptions) => connection().query(sql, params, queryOptions),
    exec: (sql) => connection().exec(sql),
  };
  const onRequestPool = onPool(pool);
  const lanes =
    options.pipelinedConnections > 0
      ? new PipelinedLanes(
          () => {
            const client = new Client({
              ...connectionConfig(options, `${options.applicationName}-pipelined`, types),
              pipeline: true,
            });
            return { client, socket: client.socket };
          },
          options.pipelinedConnections,
          (error) => options.onError?.(error),
        )
      : undefined;
  // Only reads that take no locks go on the lanes: a statement waiting for a row lock would hold
  // up every lookup sent behind it, the lock holder's own included.
  const direct = wrap(
    lanes
      ? (config, queryOptions) => (config.name && queryOptions?.cacheable ? lanes.run(config) : onRequestPool(config))
      : onRequestPool,
    false,
  );
  return {
    kind: "postgres",
    query: direct.query,
    exec: direct.exec,
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // A checked-out client has no listener of the pool's: without this one, a connection
      // terminated between two statements would be an unhandled 'error' event, ending the process.
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
        options.onError?.(error);
      };
      client.on("error", onError);
      const steps = new PgTransaction(client, socketOf(client), unnameRefused);
      const tx: Transaction = {
        ...wrap((config) => steps.run(config), true),
        atCommit: ({ sql, params, options: queryOptions }) => steps.atCommit(queryConfig(sql, params, queryOptions)),
      };
      try {
        const result = await fn(tx);
        await steps.commit();
        return result;
      } catch (error) {
        if (!broken) await steps.rollback().catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.removeListener("error", onError);
        // A client whose connection failed is destroyed, not handed to the next caller.
        client.release(broken);
      }
    },
    background,
    async close() {
      unwatch();
      await Promise.all([pool.end(), backgroundPool?.end(), lanes?.close()]);
    },
  };
}
