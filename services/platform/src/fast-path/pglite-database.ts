import type { PGlite, Results } from "@electric-sql/pglite";
import type { Database, QueryOptions, QueryResult, Queryable, Row, Statement, Transaction } from "../db/database.js";
import type { PgliteDatabaseOptions } from "../db/pglite.js";
import { ReadCache } from "../db/read-cache.js";
import { TransactionBatches } from "./pglite-batches.js";
import { PgliteStatements } from "./pglite-statements.js";
import { PgliteTransaction } from "./pglite-transaction.js";

/** Runs one function at a time, in the order they came (see fastPgliteDatabase). */
class Gate {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

/** Statements that change no table's shape: the prepared statements stay. */
const MAINTENANCE = /^\s*(VACUUM|ANALYZE)\b/i;

/** Statements worth preparing: the ones PostgreSQL plans. */
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|VALUES)\b/i;

/**
 * Statements through the cache of named prepared statements, holding PGlite's query lock
 * (`runExclusive`) as its `query()` does, and outside a transaction the gate (see
 * fastPgliteDatabase). Outside a transaction, reads marked cacheable go through the read cache
 * and every other statement counts as a write to it; a transaction counts as one write as a
 * whole.
 */
function queryable(
  db: PGlite,
  gate: Gate,
  statements: PgliteStatements,
  tx: PgliteTransaction | undefined,
  reads: ReadCache | undefined,
): Queryable {
  const run = <R>(sql: string, params: readonly unknown[] | undefined): Promise<QueryResult<R>> =>
    tx ? statement<R>(sql, params) : gate.run(() => statement<R>(sql, params));
  const statement = async <R>(sql: string, params: readonly unknown[] | undefined): Promise<QueryResult<R>> => {
    const preparable = PREPARABLE.test(sql);
    let result: Results<unknown>;
    if (tx?.closed) throw new Error("Transaction is closed");
    if (tx && !preparable && (params ?? []).length === 0) {
      // Schema changes and settings in a transaction (TRUNCATE, SET LOCAL): as a script.
      result = (await db.runExclusive(() => statements.script(sql, tx))).at(-1) ?? { rows: [], fields: [] };
    } else if (tx) {
      result = await db.runExclusive(() => statements.run(sql, params ?? [], tx));
      if (!preparable) statements.forgetAll();
    } else if (MAINTENANCE.test(sql)) {
      result = await db.query(sql, params as unknown[] | undefined);
    } else if (!preparable) {
      // Schema changes and settings: run as PGlite does, and drop the prepared statements,
      // whose result types a schema change may have changed.
      result = await db.query(sql, params as unknown[] | undefined).finally(() => statements.forgetAll());
    } else {
      result = await db.runExclusive(() => statements.run(sql, params ?? []));
    }
    // As node-postgres counts: rows written, or for a SELECT the rows read (PGlite says 0 then).
    return { rows: result.rows as R[], rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
  };
  return {
    query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      if (reads === undefined) return run<R>(sql, params);
      if (options?.cacheable && PREPARABLE.test(sql)) return reads.read(sql, params ?? [], () => run<R>(sql, params));
      return reads.write(() => run<R>(sql, params));
    },
    async exec(sql: string): Promise<void> {
      const execute = async () => {
        if (tx) {
          await db.runExclusive(() => statements.script(sql, tx));
          return;
        }
        try {
          await gate.run(() => db.exec(sql));
        } finally {
          // Migrations change tables, and with them what a prepared statement may return.
          statements.forgetAll();
        }
      };
      await (reads ? reads.write(execute) : execute());
    },
  };
}

/**
 * An open PGlite as the stores' Database, its statements prepared once each (FAST_PATH's
 * `pglite`). This process is the database's only writer, and every write goes through here, so
 * cacheable reads may be answered from a read cache that every write empties.
 *
 * A transaction holds the gate from its first statement to its end, and a statement outside
 * one holds it while it runs: PGlite has one connection, and a statement run between two of a
 * transaction's would run inside it. (PGlite's `transaction()` holds a lock of its own for this,
 * which its public API offers only with BEGIN and COMMIT sent each in a call of their own.)
 */
export function fastPgliteDatabase(db: PGlite, options: PgliteDatabaseOptions): Database {
  const statements = new PgliteStatements(db);
  const gate = new Gate();
  const reads = options.readCache === false ? undefined : new ReadCache();
  const direct = queryable(db, gate, statements, undefined, reads);
  const batches = new TransactionBatches();
  return {
    kind: "pglite",
    query: direct.query,
    exec: direct.exec,
    background: direct,
    transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const run = () =>
        gate.run(async () => {
          if (!db.ready) await db.waitReady;
          const tx = new PgliteTransaction(db);
          const inTransaction = queryable(db, gate, statements, tx, undefined);
          const atCommit: Statement[] = [];
          let result: T;
          try {
            result = await fn({ ...inTransaction, atCommit: (statement) => void atCommit.push(statement) });
            // Each in a call of its own: sending them in the COMMIT's call measured no faster.
            for (const { sql, params, options } of atCommit) await inTransaction.query(sql, params, options);
          } catch (error) {
            await tx.rollback();
            throw error;
          }
          await tx.commit();
          return result;
        });
      const batched = () => batches.run(run);
      return reads ? reads.write(batched) : batched();
    },
    async close() {
      await db.close();
    },
  };
}
