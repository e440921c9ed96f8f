import { type messages, type PGlite, parse, protocol, type Results } from "@electric-sql/pglite";
import { bindExecuteSync, readReplies } from "./pglite-protocol.js";
import { afterBegin, type PgliteTransaction } from "./pglite-transaction.js";

/** Numbers the statements: unique in the process, so also on a connection shared by two caches. */
let statementCount = 0;

/**
 * Named prepared statements on one PGlite connection. PGlite's `query()` sends every statement
 * unnamed, so PostgreSQL parses and plans it on each call, and planning dominates a small query
 * in WASM. This parses each distinct SQL text once under a name (and learns its parameter and
 * result types), then runs it with Bind + Execute + Sync in one round trip; after five runs
 * PostgreSQL settles on a generic plan and stops planning it at all.
 *
 * The caller holds PGlite's locks (see pglite.ts). Results are read from the replies' bytes
 * with the database's type parsers (pglite-protocol.ts), as PGlite's own result parser makes
 * them, so they match `query()`'s; so do errors.
 */
export class PgliteStatements {
  /** SQL text -> statement, least recently used first (a Map keeps insertion order). */
  readonly #statements = new Map<string, Prepared>();
  /** Evicted statements, closed with the next message sent. */
  #evicted: string[] = [];

  constructor(
    private readonly db: PGlite,
    /** The most statements kept prepared: each holds a parse tree and plans in the database. */
    readonly capacity = 500,
  ) {}

  get size(): number {
    return this.#statements.size;
  }

  /** One statement, in `transaction` when given (which syncs the files at its end). */
  async run(sql: string, params: readonly unknown[], transaction?: PgliteTransaction): Promise<Results<unknown>> {
    try {
      return await this.#run(sql, params, transaction);
    } catch (error) {
      // A changed table can leave a statement unusable ("cached plan must not change result
      // type") and something may have dropped it: prepare it again, unless in a transaction,
      // which that error has aborted.
      if (!isStaleStatement(error)) throw annotate(error, sql, params);
      this.#forget(sql);
      if (transaction) throw annotate(error, sql, params);
      try {
        return await this.#run(sql, params, undefined);
      } catch (retryError) {
        throw annotate(retryError, sql, params);
      }
    }
  }

  /**
   * A script of statements without parameters (the simple query protocol) in `transaction`, its
   * BEGIN ahead of it if it is the transaction's first. Drops the prepared statements after it:
   * a script may change tables.
   */
  async script(sql: string, transaction: PgliteTransaction): Promise<Results<unknown>[]> {
    try {
      const parts = [protocol.serialize.query(sql)];
      const begin = transaction.begin();
      if (begin) parts.unshift(begin);
      const replies = afterBegin(
        await this.db.execProtocolStream(this.#withEvicted(parts), { syncToFs: false }),
        begin !== undefined,
      );
      return parse.parseResults(replies, this.db.parsers) as Results<unknown>[];
    } finally {
      this.forgetAll();
    }
  }

  /**
   * Drops every statement (closed with the next message): schema changes (migrations) may
   * change what a statement returns.
   */
  forgetAll(): void {
    for (const statement of this.#statements.values()) this.#evicted.push(statement.name);
    this.#statements.clear();
  }

  async #run(
    sql: string,
    params: readonly unknown[],
    transaction: PgliteTransaction | undefined,
  ): Promise<Results<unknown>> {
    const statement = this.#statements.get(sql) ?? (await this.#prepare(sql));
    // Most recently used last.
    this.#statements.delete(sql);
    this.#statements.set(sql, statement);
    const values = params.map((value, i) => this.#serialize(value, statement.paramTypes[i] ?? 0));
    const parts = [bindExecuteSync(statement.name, values)];
    const begin = transaction?.begin();
    if (begin) parts.unshift(begin);
    // The replies' bytes, read here: PGlite's stream would build an object per message first.
    const chunks: Uint8Array[] = [];
    await this.db.execProtocolRawStream(this.#withEvicted(parts), {
      syncToFs: !transaction,
      onRawData: (chunk) => void chunks.push(chunk.slice()),
    });
    const fields = statement.rowDescription?.fields ?? [];
    const { rows, affectedRows } = readReplies(onlyOrJoined(chunks), begin !== undefined, fields, this.db.parsers);
    return { rows, affectedRows, fields };
  }

  async #prepare(sql: string): Promise<Prepared> {
    const name = `voiceops_${++statementCount}`;
    const message = this.#withEvicted([
      protocol.serialize.parse({ name, text: sql }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync(),
    ]);
    const replies = await this.db.execProtocolStream(message, { syncToFs: false });
    const statement: Prepared = { name, paramTypes: [], rowDescription: undefined };
    for (const reply of replies) {
      if (reply.name === "parameterDescription")
        statement.paramTypes = (reply as messages.ParameterDescriptionMessage).dataTypeIDs;
      else if (reply.name === "rowDescription") statement.rowDescription = reply as messages.RowDescriptionMessage;
    }
    this.#statements.set(sql, statement);
    while (this.#statements.size > this.capacity) {
      const [oldest] = this.#statements.keys();
      if (oldest === undefined || oldest === sql) break;
      this.#forget(oldest);
    }
    return statement;
  }

  /** As PGlite's query() turns a parameter into text: by the type PostgreSQL inferred for it. */
  #serialize(value: unknown, type: number): unknown {
    if (value === null || value === undefined) return null;
    const serializer = this.db.serializers[type];
    return serializer ? serializer(value) : String(value);
  }

  #forget(sql: string): void {
    const statement = this.#statements.get(sql);
    if (!statement) return;
    this.#statements.delete(sql);
    this.#evicted.push(statement.name);
  }

  /** The message, after a Close for each evicted statement (closing a missing one is no error). */
  #withEvicted(parts: Uint8Array[]): Uint8Array {
    if (this.#evicted.length > 0) {
      parts.unshift(...this.#evicted.map((name) => protocol.serialize.close({ type: "S", name })));
      this.#evicted = [];
    }
    return onlyOrJoined(parts);
  }
}

/** The one buffer given, or a copy of them all one after another. */
function onlyOrJoined(parts: Uint8Array[]): Uint8Array {
  const [only] = parts;
  return only && parts.length === 1 ? only : Buffer.concat(parts);
}

interface Prepared {
  name: string;
  paramTypes: number[];
  /** Undefined for a statement that returns no rows. */
  rowDescription: messages.RowDescriptionMessage | undefined;
}

// 0A000 with this message: a table changed under a statement that returns its whole row;
// 26000: the named statement is gone (DEALLOCATE ALL, DISCARD ALL).
function isStaleStatement(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === "26000" || (code === "0A000" && error.message.includes("cached plan must not change result type"));
}

/** As PGlite's query() annotates its errors. */
function annotate(error: unknown, sql: string, params: readonly unknown[]): unknown {
  if (error instanceof Error && "code" in error) Object.assign(error, { query: sql, params });
  return error;
}
