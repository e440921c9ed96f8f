/** The one small interface every store uses, over node-postgres or embedded PGlite. */

export type Row = Record<string, unknown>;

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  /** One parameterized statement. */
  query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "pglite";
  /** Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL error codes the stores react to. */
export const PgErrorCode = {
  uniqueViolation: "23505",
  foreignKeyViolation: "23503",
} as const;

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
