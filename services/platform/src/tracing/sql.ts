import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Database, Queryable, QueryOptions, Row, Transaction } from "../db/database.js";
import { tracer } from "./state.js";

/** How much of a statement a span keeps. */
const STATEMENT_CHARS = 2_000;

/** The statement's command (SELECT, INSERT, WITH...), upper case. */
function operationOf(sql: string): string {
  const match = /^\s*([A-Za-z]+)/.exec(sql);
  return match?.[1]?.toUpperCase() ?? "SQL";
}

async function span<T>(system: string, sql: string, run: () => Promise<T>): Promise<T> {
  const operation = operationOf(sql);
  const statement = sql.length > STATEMENT_CHARS ? `${sql.slice(0, STATEMENT_CHARS)}…` : sql;
  const current = tracer().startSpan(
    operation,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "db.system": system,
        "db.system.name": system,
        "db.operation": operation,
        "db.operation.name": operation,
        "db.statement": statement,
        "db.query.text": statement,
      },
    },
    context.active(),
  );
  try {
    const result = await context.with(trace.setSpan(context.active(), current), run);
    current.end();
    return result;
  } catch (error) {
    current.recordException(error instanceof Error ? error : String(error));
    current.setStatus({ code: SpanStatusCode.ERROR });
    current.end();
    throw error;
  }
}

function tracedQueryable<Q extends Queryable>(inner: Q, system: string): Queryable {
  return {
    query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      return span(system, sql, () => inner.query<R>(sql, params, options));
    },
    exec(sql: string) {
      return span(system, sql, () => inner.exec(sql));
    },
  };
}

/**
 * A database whose statements are client spans (db.* attributes) in the active trace: one
 * wrapper for node-postgres and PGlite alike. Statements a transaction runs at its commit (the
 * outbox's insert) are part of the commit and not spans of their own.
 */
export function tracedDatabase(db: Database): Database {
  // PGlite is PostgreSQL in WebAssembly; the conventions name the database, not the driver.
  const system = "postgresql";
  return {
    ...tracedQueryable(db, system),
    get kind() {
      return db.kind;
    },
    get background() {
      return db.background;
    },
    transaction<T>(fn: (tx: Transaction) => Promise<T>) {
      return db.transaction((tx) =>
        fn({ ...tracedQueryable(tx, system), atCommit: (statement) => tx.atCommit(statement) }),
      );
    },
    close: () => db.close(),
  };
}
