import { AsyncResource } from "node:async_hooks";

/**
 * Transactions issued in one turn of the event loop run after it, one after another, and their
 * callers hear back once the last has ended; each still commits or rolls back on its own. Run
 * as they came, each one's statements alternated with the JavaScript of other requests (answers
 * written, requests read), and PostgreSQL in WASM and that JavaScript slowed each other down on
 * the one core (docs/performance.md has the figures). A statement issued outside
 * a transaction meanwhile may run before them, as on PostgreSQL with a pool; the read cache is
 * emptied as each transaction is issued and again as its caller hears back (pglite.ts).
 */
export class TransactionBatches {
  #queue: (() => Promise<() => void>)[] = [];

  run<T>(transaction: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => void this.#flush());
      // Run in its caller's async context: the batch runs in the first caller's, and a
      // transaction's work (its spans, the trace its events carry) belongs to its own request.
      // (An AsyncResource and runInAsyncScope: AsyncResource.bind costs about 12 µs on Node 20.)
      const caller = new AsyncResource("voiceops.pglite.transaction");
      this.#queue.push(() =>
        caller.runInAsyncScope(() =>
          transaction().then(
            (value) => () => resolve(value),
            (error: unknown) => () => reject(error),
          ),
        ),
      );
    });
  }

  async #flush(): Promise<void> {
    const queue = this.#queue;
    this.#queue = [];
    const held: (() => void)[] = [];
    const answer = () => {
      for (const done of held.splice(0)) done();
    };
    // A batch that outlasts its turn (a transaction waiting for I/O, or for the answer to one
    // before it) answers what has ended, and each later one as it ends: nothing waits on a
    // held answer.
    let late = false;
    const lateAnswers = setImmediate(() => {
      late = true;
      answer();
    });
    for (const transaction of queue) {
      const done = await transaction();
      held.push(done);
      if (late) answer();
    }
    clearImmediate(lateAnswers);
    answer();
  }
}
