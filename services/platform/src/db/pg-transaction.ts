import type * as Pg from "pg";
import { fastPath } from "../fast-path/index.js";
import { isPrepared, type PipelineStatement, runPipeline } from "./pg-pipeline.js";

type PgPackage = typeof import("pg").default;

const BEGIN: PipelineStatement = { text: "BEGIN" };
const COMMIT: PipelineStatement = { text: "COMMIT" };

function pipelineStatement(config: Pg.QueryConfig): PipelineStatement {
  return { text: config.text, name: config.name, values: config.values };
}

/**
 * One transaction on a checked-out client. pg would send BEGIN, each statement and COMMIT each
 * in a round trip of its own; here BEGIN travels with the first statement and COMMIT with the
 * statements left for it (`atCommit`: the outbox's insert), so a write of one statement and its
 * event takes two round trips instead of four. A transaction that ran nothing sends nothing.
 */
export class PgTransaction {
  #begun = false;
  readonly #atCommit: Pg.QueryConfig[] = [];

  constructor(
    private readonly pg: PgPackage,
    private readonly client: Pg.PoolClient,
    private readonly types: Pg.CustomTypesConfig,
    /** Told of a statement's failure (the caller's bookkeeping of prepared statements). */
    private readonly onStatementError: (config: Pg.QueryConfig, error: unknown) => void,
  ) {}

  /** Runs a statement, behind the BEGIN if it is the transaction's first. */
  async run(config: Pg.QueryConfig): Promise<Pg.QueryResult> {
    if (this.#begun) return this.client.query(config);
    this.#begun = true;
    if (!this.#pipelinable(config)) {
      await this.client.query("BEGIN");
      return this.client.query(config);
    }
    const [, result] = await runPipeline(this.pg, this.client, this.types, [BEGIN, pipelineStatement(config)]);
    return result as Pg.QueryResult;
  }

  atCommit(config: Pg.QueryConfig): void {
    this.#atCommit.push(config);
  }

  /** Runs the statements left for the commit, then commits; an aborted transaction throws. */
  async commit(): Promise<void> {
    const pending = this.#atCommit.splice(0);
    if (!this.#begun && pending.length === 0) return;
    if (!fastPath("pg-pipeline")) {
      for (const config of pending) await this.#reported(config, this.run(config));
      const result = await this.client.query("COMMIT");
      if (result.command === "ROLLBACK") throw Object.assign(new Error("Transaction was rolled back instead of committed"), { code: "25P02" });
      return;
    }
    if (!pending.every((config) => this.#pipelinable(config))) {
      // One is not prepared on this connection yet: each goes alone, which prepares it for the
      // next transaction on this connection.
      for (const config of pending.splice(0)) await this.#reported(config, this.run(config));
    }
    const begin = this.#begun ? [] : [BEGIN];
    this.#begun = true;
    let results: Pg.QueryResult[];
    try {
      results = await runPipeline(this.pg, this.client, this.types, [...begin, ...pending.map(pipelineStatement), COMMIT]);
    } catch (error) {
      const config = pending[((error as { statement?: number }).statement ?? -1) - begin.length];
      if (config) this.onStatementError(config, error);
      throw error;
    }
    // PostgreSQL answers COMMIT of a transaction a failed statement aborted with ROLLBACK.
    if (results.at(-1)?.command === "ROLLBACK") {
      throw Object.assign(new Error("Transaction was rolled back instead of committed"), { code: "25P02" });
    }
  }

  async rollback(): Promise<void> {
    this.#atCommit.length = 0;
    if (this.#begun) await this.client.query("ROLLBACK");
  }

  /** Whether the statement may go in a pipeline: unnamed, or prepared on this connection already. */
  #pipelinable(config: Pg.QueryConfig): boolean {
    if (!fastPath("pg-pipeline")) return false;
    return !config.name || isPrepared(this.client, config.name, config.text);
  }

  async #reported<R>(config: Pg.QueryConfig, running: Promise<R>): Promise<R> {
    try {
      return await running;
    } catch (error) {
      this.onStatementError(config, error);
      throw error;
    }
  }
}
