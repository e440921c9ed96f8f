import { type messages, type PGlite, protocol } from "@electric-sql/pglite";

const BEGIN = protocol.serialize.query("BEGIN");
const COMMIT = protocol.serialize.query("COMMIT");
const ROLLBACK = protocol.serialize.query("ROLLBACK");

/**
 * One transaction on PGlite, for a caller that holds PGlite's transaction lock. PGlite's own
 * `transaction()` sends BEGIN and COMMIT each as a query followed by a Sync: four calls into the
 * database besides the statements. Here BEGIN travels in the same call as the transaction's
 * first statement, COMMIT is one call, and a transaction that ran no statement sends neither.
 */
export class PgliteTransaction {
  #begun = false;
  #closed = false;

  constructor(private readonly db: PGlite) {}

  /** Committed or rolled back: a statement now would run outside the transaction. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The BEGIN to send ahead of the next statement, once; then nothing. */
  begin(): Uint8Array | undefined {
    if (this.#closed) throw new Error("Transaction is closed");
    if (this.#begun) return undefined;
    this.#begun = true;
    return BEGIN;
  }

  /** Commits; a transaction that a failed statement had aborted is rolled back and throws. */
  async commit(): Promise<void> {
    this.#closed = true;
    if (!this.#begun) return;
    const replies = await this.db.runExclusive(() => this.db.execProtocolStream(COMMIT, { syncToFs: true }));
    if (
      replies.some(
        (reply) => reply.name === "commandComplete" && (reply as messages.CommandCompleteMessage).text === "ROLLBACK",
      )
    ) {
      // As PGlite reports it: the transaction was in a failed state.
      throw Object.assign(new Error("Transaction was rolled back instead of committed"), { code: "25P02" });
    }
  }

  async rollback(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#begun) return;
    await this.db.runExclusive(() => this.db.execProtocolStream(ROLLBACK, { syncToFs: true }));
  }
}

/** A message's replies without those of the BEGIN sent ahead of it (up to its ReadyForQuery). */
export function afterBegin(replies: messages.BackendMessage[], began: boolean): messages.BackendMessage[] {
  if (!began) return replies;
  const ready = replies.findIndex((reply) => reply.name === "readyForQuery");
  return replies.slice(ready + 1);
}
