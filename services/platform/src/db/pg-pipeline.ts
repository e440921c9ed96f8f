import type * as Pg from "pg";

type PgPackage = typeof import("pg").default;

/** A statement of a pipeline: parsed unnamed, or run by the name it is already prepared under on the connection. */
export interface PipelineStatement {
  text: string;
  name?: string;
  values?: unknown[];
}

/** The parts of pg's Connection a query writes to, as pg's own Query uses them. */
interface Connection {
  stream: { cork?(): void; uncork?(): void };
  parsedStatements: Record<string, string | undefined>;
  parse(message: { text: string; name: string }): void;
  bind(message: { statement: string; values: unknown[] }): void;
  describe(message: { type: "P"; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/** pg's Result with the methods its own Query fills it through (not in pg's type declarations). */
interface ResultBuilder extends Pg.QueryResult {
  addFields(fields: Pg.FieldDef[]): void;
  parseRow(fields: unknown[]): Pg.QueryResultRow;
  addRow(row: Pg.QueryResultRow): void;
  addCommandComplete(message: { text: string }): void;
}

/** What of pg a pipeline uses beyond its type declarations: its Result and how it turns values into text. */
interface PgInternals {
  Result: new (rowMode: undefined, types: Pg.CustomTypesConfig) => ResultBuilder;
  utils: { prepareValue(value: unknown): unknown };
}

interface BackendError extends Error {
  /** The statement of the pipeline that failed (its index). */
  statement?: number;
}

/** Whether `name` is prepared as `text` on the client's connection, so a pipeline may run it by name. */
export function isPrepared(client: Pg.PoolClient, name: string, text: string): boolean {
  return (client as unknown as { connection: Connection }).connection.parsedStatements[name] === text;
}

/**
 * Several statements sent together and answered together: Parse (unless prepared), Bind,
 * Describe and Execute of each, then one Sync. pg sends a Sync after every statement and
 * waits for its answer before the next; a transaction's BEGIN and first statement, or its last
 * statement and COMMIT, would be two round trips (and two wake-ups of each process) each.
 *
 * After an error PostgreSQL skips the rest up to the Sync; the error says which statement
 * failed (`statement`). Inside a transaction block that leaves the block aborted, for the caller
 * to roll back. A named statement must already be prepared on this connection (`isPrepared`):
 * pg records a statement as prepared when the ParseComplete reaches the query that named it,
 * which a pipeline of several cannot be; the caller runs a statement not prepared yet on its own.
 */
class Pipeline {
  readonly #results: Pg.QueryResult[] = [];
  #result: ResultBuilder;
  #rowError: Error | undefined;
  #settled = false;

  constructor(
    private readonly pg: PgInternals,
    private readonly statements: readonly PipelineStatement[],
    private readonly types: Pg.CustomTypesConfig,
    private readonly settle: (error: Error | undefined, results: Pg.QueryResult[]) => void,
  ) {
    this.#result = new pg.Result(undefined, types);
  }

  submit(connection: Connection): Error | null {
    // Values are turned into text first: a value that cannot be (a cycle in a JSON value)
    // fails the pipeline before anything is written.
    let values: unknown[][];
    try {
      values = this.statements.map((statement) => (statement.values ?? []).map((value) => this.pg.utils.prepareValue(value)));
    } catch (error) {
      return error as Error;
    }
    connection.stream.cork?.();
    try {
      this.statements.forEach((statement, i) => {
        const name = statement.name ?? "";
        if (name === "") connection.parse({ text: statement.text, name });
        connection.bind({ statement: name, values: values[i] ?? [] });
        connection.describe({ type: "P", name: "" });
        connection.execute({ portal: "" });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: Pg.FieldDef[] }): void {
    this.#result.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    if (this.#rowError) return;
    try {
      this.#result.addRow(this.#result.parseRow(message.fields));
    } catch (error) {
      // A type parser failed: the answer is read to its end, then this is the error.
      this.#rowError = error as Error;
    }
  }

  handleCommandComplete(message: { text: string }): void {
    this.#result.addCommandComplete(message);
    this.#next();
  }

  handleEmptyQuery(): void {
    this.#next();
  }

  handleError(error: BackendError): void {
    error.statement ??= this.#results.length;
    this.#finish(error);
  }

  handleReadyForQuery(): void {
    this.#finish(this.#rowError);
  }

  handlePortalSuspended(): void {
    // Every Execute asks for all rows: a portal is never suspended.
  }

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail("COPY FROM STDIN is not supported in a pipeline");
  }

  handleCopyData(): void {}

  #next(): void {
    this.#results.push(this.#result);
    this.#result = new this.pg.Result(undefined, this.types);
  }

  #finish(error: Error | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.settle(error, this.#results);
  }
}

/** Runs the statements on the client in one round trip; resolves their results, in order. */
export function runPipeline(pg: PgPackage, client: Pg.PoolClient, types: Pg.CustomTypesConfig, statements: readonly PipelineStatement[]): Promise<Pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    const pipeline = new Pipeline(pg as unknown as PgInternals, statements, types, (error, results) => (error ? reject(error) : resolve(results)));
    // pg runs any object with submit() as a query; its types want pg's own Connection there.
    client.query(pipeline as unknown as Pg.Submittable);
  });
}
