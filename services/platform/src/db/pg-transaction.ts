import type * as Pg from "pg";

/**
 * One transaction on a checked-out client, through pg's own queries: BEGIN before the first
 * statement, the statements left for the commit (`atCommit`: the outbox's insert) after the
 * others, then COMMIT. A transaction that ran nothing sends nothing.
 */
export class PgTransaction {
  #begun = false;
  readonly #atCommit: Pg.QueryConfig[] = [];

  constructor(
    private readonly client: Pg.PoolClient,
    /** Told of a statement's failure (the caller's bookkeeping of prepared statements). */
    private readonly onStatementError: (config: Pg.QueryConfig, error: unknown) => void,
  ) {}

  /** Runs a statement, behind the BEGIN if it is the transaction's first. */
  async run(config: Pg.QueryConfig): Promise<Pg.QueryResult> {
    if (!this.#begun) {
      this.#begun = true;
      await this.client.query("BEGIN");
    }
    return this.client.query(config);
  }

  atCommit(config: Pg.QueryConfig): void {
    this.#atCommit.push(config);
  }

  /** Runs the statements left for the commit, then commits; an aborted transaction throws. */
  async commit(): Promise<void> {
    const pending = this.#atCommit.splice(0);
    if (!this.#begun && pending.length === 0) return;
    for (const config of pending) {
      try {
        await this.run(config);
      } catch (error) {
        this.onStatementError(config, error);
        throw error;
      }
    }
    // PostgreSQL answers COMMIT of a transaction a failed statement aborted with ROLLBACK.
    const result = await this.client.query("COMMIT");
    if (result.command === "ROLLBACK") {
      throw Object.assign(new Error("Transaction was rolled back instead of committed"), { code: "25P02" });
    }
  }

  async rollback(): Promise<void> {
    this.#atCommit.length = 0;
    if (this.#begun) await this.client.query("ROLLBACK");
  }
}
