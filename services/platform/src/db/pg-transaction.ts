import type { Socket } from "node:net";
import type * as Pg from "pg";

/**
 * One transaction on a checked-out client, through pg's own queries: BEGIN before the first
 * statement, the statements left for the commit (`atCommit`: the outbox's insert) after the
 * others, then COMMIT. A transaction that ran nothing sends nothing.
 *
 * On a client in pg's pipeline mode, BEGIN goes out with the first statement and the statements
 * left for the commit with the COMMIT, without waiting for the answers in between: a write by key
 * takes two round trips instead of four. Nothing is lost by not waiting: a statement that fails
 * aborts the transaction, PostgreSQL refuses the statements after it, and answers their COMMIT
 * with ROLLBACK. The socket is corked while they are given to pg, so each group leaves in one
 * write (pg writes a statement as soon as it has it: BEGIN and COMMIT went out in writes of their
 * own).
 */
export class PgTransaction {
  #begun = false;
  /** COMMIT has been sent: the transaction ends with it, whatever it answers. */
  #ended = false;
  readonly #atCommit: Pg.QueryConfig[] = [];

  constructor(
    private readonly client: Pg.Client,
    /** The client's socket, when known (pg-socket-client.ts): what a group of statements is corked on. */
    private readonly socket: Socket | undefined,
    /** Told of a statement's failure (the caller's bookkeeping of prepared statements). */
    private readonly onStatementError: (config: Pg.QueryConfig, error: unknown) => void,
  ) {}

  /** Runs a statement, behind the BEGIN if it is the transaction's first. */
  async run(config: Pg.QueryConfig): Promise<Pg.QueryResult> {
    if (this.#begun) return this.client.query(config);
    this.#begun = true;
    if (!this.client.pipeline) {
      await this.client.query("BEGIN");
      return this.client.query(config);
    }
    const [, result] = await Promise.all(this.#together(() => [this.client.query("BEGIN"), this.client.query(config)]));
    return result;
  }

  atCommit(config: Pg.QueryConfig): void {
    this.#atCommit.push(config);
  }

  /** Runs the statements left for the commit, then commits; an aborted transaction throws. */
  async commit(): Promise<void> {
    const pending = this.#atCommit.splice(0);
    if (!this.#begun && pending.length === 0) return;
    if (!this.client.pipeline) return this.#commitInTurn(pending);
    this.#ended = true;
    const [statements, commit] = this.#together(() => [
      pending.map((config) =>
        this.run(config).catch((error: unknown) => {
          this.onStatementError(config, error);
          throw error;
        }),
      ),
      this.client.query("COMMIT"),
    ]);
    // The first failure is the one to report: the statements after it only found the transaction aborted.
    const settled = await Promise.allSettled([...statements, commit]);
    const failure = settled.find((outcome) => outcome.status === "rejected");
    if (failure) throw failure.reason;
    assertCommitted((settled.at(-1) as PromiseFulfilledResult<Pg.QueryResult>).value);
  }

  /** The same, each statement waiting for the answer to the one before (a client not in pipeline mode). */
  async #commitInTurn(pending: Pg.QueryConfig[]): Promise<void> {
    for (const config of pending) {
      try {
        await this.run(config);
      } catch (error) {
        this.onStatementError(config, error);
        throw error;
      }
    }
    this.#ended = true;
    assertCommitted(await this.client.query("COMMIT"));
  }

  /** Runs `send` (which gives pg statements) with the socket corked: its statements leave in one write. */
  #together<T>(send: () => T): T {
    this.socket?.cork();
    try {
      return send();
    } finally {
      this.socket?.uncork();
    }
  }

  async rollback(): Promise<void> {
    this.#atCommit.length = 0;
    if (this.#begun && !this.#ended) await this.client.query("ROLLBACK");
  }
}

/** PostgreSQL answers COMMIT of a transaction a failed statement aborted with ROLLBACK. */
function assertCommitted(result: Pg.QueryResult): void {
  if (result.command === "ROLLBACK") {
    throw Object.assign(new Error("Transaction was rolled back instead of committed"), { code: "25P02" });
  }
}
