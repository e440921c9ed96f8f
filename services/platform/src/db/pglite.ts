import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite, type Results } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { fastPath } from "../fast-path/index.js";
import { fastPgliteDatabase } from "../fast-path/pglite-database.js";
import type { Database, QueryOptions, QueryResult, Queryable, Row, Statement, Transaction } from "./database.js";
import { ReadCache } from "./read-cache.js";

/**
 * A freshly initialized PGlite data directory, made once by the build (`npm run build`, run
 * after `npm install`), as a folder (copied into a new data directory) and as a tar (loaded into
 * an in-memory database): a new database starts from it instead of running initdb, which takes
 * several seconds. Without it, initdb runs as usual.
 */
const PGLITE_TEMPLATE_DIR = fileURLToPath(new URL("../../../../dist/pglite-template", import.meta.url));
const PGLITE_TEMPLATE_TAR = `${PGLITE_TEMPLATE_DIR}.tar`;

/**
 * Start-up settings: the embedded database serves one small installation, so 16 MB of shared
 * buffers (instead of 128 MB, all of it resident) keeps the process small.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB", "-c", "wal_buffers=1MB"];

/** Statements worth caching the results of: reads. */
const READ = /^\s*(SELECT|WITH|VALUES)\b/i;

/** A statement's result as the stores see it; as node-postgres counts: rows written, or for a SELECT the rows read (PGlite says 0 then). */
function queryResult<R>(result: Results<unknown>): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
}

/** Statements through PGlite's own `query` and `exec`, on the database or in one of its transactions. */
function stockQueryable(db: Pick<PGlite, "query" | "exec">, reads: ReadCache | undefined): Queryable {
  const run = async <R>(sql: string, params: readonly unknown[] | undefined) =>
    queryResult<R>(await db.query(sql, params as unknown[] | undefined));
  return {
    query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      if (reads === undefined) return run<R>(sql, params);
      if (options?.cacheable && READ.test(sql)) return reads.read(sql, params ?? [], () => run<R>(sql, params));
      return reads.write(() => run<R>(sql, params));
    },
    async exec(sql: string): Promise<void> {
      await (reads ? reads.write(() => db.exec(sql)) : db.exec(sql));
    },
  };
}

/**
 * An open PGlite as the stores' Database through PGlite's public API alone (FAST_PATH without
 * `pglite`): `query`, `exec` and `transaction`. This process is the database's only writer, and
 * every write goes through here, so cacheable reads may be answered from a read cache that every
 * write empties.
 */
function stockPgliteDatabase(db: PGlite, options: PgliteDatabaseOptions): Database {
  const reads = options.readCache === false ? undefined : new ReadCache();
  const direct = stockQueryable(db, reads);
  return {
    kind: "pglite",
    query: direct.query,
    exec: direct.exec,
    background: direct,
    transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const run = () =>
        db.transaction(async (pgTx) => {
          const inTransaction = stockQueryable(pgTx, undefined);
          const atCommit: Statement[] = [];
          const result = await fn({ ...inTransaction, atCommit: (statement) => void atCommit.push(statement) });
          for (const { sql, params, options: queryOptions } of atCommit)
            await inTransaction.query(sql, params, queryOptions);
          return result;
        });
      return reads ? reads.write(run) : run();
    },
    async close() {
      await db.close();
    },
  };
}

const TIMESTAMPTZ_OID = 1184;
const PG_TIMESTAMPTZ =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

/**
 * PostgreSQL's text form of a timestamptz as a Date. PGlite hands it to `new Date()`, whose
 * non-ISO parsing reads the years 0001..0049 as 2001..2049; this reads every year as written.
 */
function parseTimestamptz(text: string): Date | number {
  if (text === "infinity") return Number.POSITIVE_INFINITY;
  if (text === "-infinity") return Number.NEGATIVE_INFINITY;
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) return new Date(text);
  const year = m[12] ? 1 - Number(m[1]) : Number(m[1]);
  const date = new Date(0);
  date.setUTCFullYear(year, Number(m[2]) - 1, Number(m[3]));
  date.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), m[7] ? Math.floor(Number(m[7]) * 1000) : 0);
  const offsetSeconds = Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0);
  return new Date(date.getTime() - (m[8] === "-" ? -1 : 1) * offsetSeconds * 1000);
}

/** Opens (or creates) the database with our extensions, settings and timestamptz parser. */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  const options = {
    extensions: { pg_trgm, btree_gin, btree_gist },
    startParams: PGLITE_START_PARAMS,
    parsers: { [TIMESTAMPTZ_OID]: parseTimestamptz },
  };
  if (dataDir === undefined) {
    if (existsSync(PGLITE_TEMPLATE_TAR)) {
      try {
        return await PGlite.create("memory://", {
          ...options,
          loadDataDir: new Blob([readFileSync(PGLITE_TEMPLATE_TAR)]),
        });
      } catch {
        // An unusable template: initialize from scratch instead.
      }
    }
    return PGlite.create("memory://", options);
  }
  if (!existsSync(join(dataDir, "PG_VERSION")) && existsSync(join(PGLITE_TEMPLATE_DIR, "PG_VERSION"))) {
    cpSync(PGLITE_TEMPLATE_DIR, dataDir, { recursive: true });
    try {
      return await PGlite.create(dataDir, options);
    } catch {
      // An unusable template: initialize the new directory from scratch instead.
      rmSync(dataDir, { recursive: true, force: true });
      mkdirSync(dataDir, { recursive: true });
    }
  }
  return PGlite.create(dataDir, options);
}

/**
 * Embedded PostgreSQL (one connection, in this process). `dataDir` undefined keeps the data
 * in memory. PGlite runs one statement at a time and holds other callers back while a
 * transaction is open, which gives the same isolation a pool would.
 */
export async function createPgliteDatabase(
  dataDir: string | undefined,
  options: PgliteDatabaseOptions = {},
): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  return pgliteDatabase(await openPglite(dataDir), options);
}

export interface PgliteDatabaseOptions {
  /** Answer cacheable reads from the results kept since the last write (default true). */
  readCache?: boolean;
}

/**
 * An open PGlite as the stores' Database: its statements prepared once each and its
 * transactions run in batches (fast-path/pglite-database.ts), or through PGlite's own API
 * (FAST_PATH without `pglite`).
 */
export function pgliteDatabase(db: PGlite, options: PgliteDatabaseOptions = {}): Database {
  return fastPath("pglite") ? fastPgliteDatabase(db, options) : stockPgliteDatabase(db, options);
}

/** Initializes the template folder and writes its tar (the build runs this once). */
export async function makePgliteTemplate(dir: string, tar: string): Promise<void> {
  const db = await PGlite.create(dir, { extensions: { pg_trgm }, startParams: PGLITE_START_PARAMS });
  try {
    const dump = await db.dumpDataDir("none");
    writeFileSync(tar, new Uint8Array(await dump.arrayBuffer()));
  } finally {
    await db.close();
  }
}
