/** The one small interface every store uses, over node-postgres or embedded PGlite. */

export type Row = Record<string, unknown>;

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** How a statement may be run. */
export interface QueryOptions {
  /**
   * A read whose result depends only on the data and its parameters (no `now()`, no locks, no
   * writes): a database only this process writes (embedded PGlite) may answer it from the
   * results it kept since the last write. On PostgreSQL, such a read that is also `prepared`
   * goes on a pipelined connection (db/pg-pipelined.ts). Ignored inside a transaction.
   */
  cacheable?: boolean;
  /**
   * A statement whose plan is the same for any parameters (a lookup or write by key): on
   * PostgreSQL each connection parses it once and keeps it prepared, so later runs skip
   * parsing and, once PostgreSQL settles on its generic plan, planning. Leave it off where the
   * best plan depends on the values (searches, filters of very different selectivity).
   */
  prepared?: boolean;
}

export interface Queryable {
  /** One parameterized statement. */
  query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params?: readonly unknown[];
  options?: QueryOptions;
}

export interface Transaction extends Queryable {
  /**
   * A statement whose result nobody reads (the outbox's insert), run when the transaction
   * commits, after its other statements. If it fails,
   * the transaction rolls back and the commit throws its error.
   */
  atCommit(statement: Statement): void;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "pglite";
  /** Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Statements of background work that must not wait behind requests (the outbox relay): on
   * PostgreSQL a connection of their own, outside the request pool; on PGlite, which has one
   * connection, the database itself.
   */
  readonly background: Queryable;
  close(): Promise<void>;
}

/** PostgreSQL error codes the stores react to. */
export const PgErrorCode = {
  uniqueViolation: "23505",
  foreignKeyViolation: "23503",
  /** An exclusion constraint: two rows whose ranges may not overlap. */
  exclusionViolation: "23P01",
  /**
   * Transactions waiting on each other; PostgreSQL aborted this one. Concurrent inserts checked
   * against one exclusion constraint can do this: each waits for the other's row to commit.
   */
  deadlockDetected: "40P01",
} as const;

/**
 * An error PostgreSQL answered (node-postgres or PGlite): it has a five-character SQLSTATE and
 * the server's severity or routine. The connection that got it is still good.
 */
export function isDatabaseError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = pgErrorCode(error);
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) && ("severity" in error || "routine" in error);
}

export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

export function pgConstraint(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "constraint" in error) {
    const name = (error as { constraint: unknown }).constraint;
    return typeof name === "string" ? name : undefined;
  }
  return undefined;
}

// SQLSTATE classes and codes that mean "the database cannot be reached right now", not "this
// statement is wrong": connection exceptions, shutdowns, too many connections, cancellation
// by statement_timeout, and a database that refuses connections.
const UNAVAILABLE_CLASSES = ["08"];
const UNAVAILABLE_CODES = new Set(["57P01", "57P02", "57P03", "57014", "53300", "53400", "55000"]);
const UNAVAILABLE_SYSCALLS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// node-postgres reports a lost or unobtainable connection with a plain message.
const UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error",
  "Client was closed and is not queryable",
  "Cannot use a pool after calling end",
];

/**
 * Whether an error means the database is unreachable for now (the request may be retried),
 * rather than a bug or a bad statement.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = pgErrorCode(error);
  if (code !== undefined) {
    if (UNAVAILABLE_SYSCALLS.has(code)) return true;
    if (code.length === 5 && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2)))) {
      return code !== "55000" || /not currently accepting connections/.test(String((error as Error).message));
    }
  }
  const message = error instanceof Error ? error.message : "";
  return UNAVAILABLE_MESSAGES.some((text) => message.startsWith(text));
}
