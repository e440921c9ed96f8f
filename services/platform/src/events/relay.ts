import type { BusMessage, EventBus } from "../bus/bus.js";
import type { Database, Queryable } from "../db/database.js";
import type { Logger } from "../log.js";
import { outboxBacklog, outboxPublished, outboxPublishLag } from "../metrics.js";

interface OutboxRelayOptions {
  db: Database;
  bus: EventBus;
  schema: string;
  logger: Logger;
  /** Rows claimed per pass. */
  batchSize?: number;
  /**
   * Publishes awaiting the bus's acknowledgement at once. The in-process bus runs consumers
   * inside publish(), so it gets one at a time (consumers see events in commit order).
   */
  window?: number;
  /** Poll interval when nothing wakes the relay (events committed by another replica, restarts). */
  idleMs?: number;
  /**
   * How long a pass waits after a nudge for the commits that follow, when the relay has caught
   * up: under a steady stream of writes one pass then claims, publishes and deletes several
   * events instead of one each (three statements per pass).
   */
  lingerMs?: number;
}

interface OutboxRow {
  seq: number;
  id: string;
  subject: string;
  payload: Uint8Array;
  /** Milliseconds between the event's commit (its row's creation) and the claim, by the database clock. */
  age_ms: number;
}

/** The first wait for the turn after another replica's relay had it; doubled while it keeps it. */
const TURN_RETRY_MS = 20;

/** An outbox row as the bus message it is published as (the event id is its Nats-Msg-Id). */
function messageOf(row: OutboxRow): BusMessage {
  return { subject: row.subject, id: row.id, data: new Uint8Array(row.payload) };
}

/**
 * Publishes what the service committed to its outbox. A commit that wrote events wakes the
 * relay at once (nudge); it also polls, for rows another replica committed or left behind.
 * On PostgreSQL rows are claimed for a short lease (so replicas share the work without holding a
 * transaction while publishing), and the replicas' relays take turns: a pass holds an advisory
 * lock of the schema's outbox from its claim until its rows are deleted or released, so no relay
 * publishes later rows while another still publishes earlier ones. On PGlite, which one process
 * alone opens, rows are read as they are. They are published with the event id as Nats-Msg-Id,
 * up to `window` at a time: they are sent in commit order on one connection, so each subject
 * keeps that order in the stream. At the first failed publish the relay sends nothing more of
 * the batch; the rows not acknowledged go back to the outbox and are sent again later, and
 * JetStream drops those it had already stored (same Nats-Msg-Id). Published rows are then deleted; a crash before that
 * republishes them, which JetStream de-duplicates and consumers ignore.
 */
export class OutboxRelay {
  private stopped = false;
  private failures = 0;
  /** Passes in a row that found another replica's relay publishing. */
  private turnsMissed = 0;
  private wanted = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private backlogCheckedAt = 0;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Asks for a prompt pass (called after a commit that wrote events). */
  nudge(): void {
    this.wanted = true;
    this.wake?.();
  }

  private sleep(ms: number, wakeOnNudge: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wake === done) self.wake = undefined;
        resolve();
      }
      // A nudge ends an idle wait; a retry wait after a failure only ends early on stop.
      this.wake = wakeOnNudge ? done : () => (this.stopped ? done() : undefined);
    });
  }

  private async run(): Promise<void> {
    const { idleMs = 1_000, batchSize = 500, lingerMs = 10 } = this.options;
    let caughtUp = false;
    while (!this.stopped) {
      if (caughtUp && lingerMs > 0) await this.sleep(lingerMs, false);
      this.wanted = false;
      let published: number | undefined = 0;
      try {
        published = await this.drain();
        this.failures = 0;
      } catch (error) {
        this.failures++;
        const retryMs = Math.min(10_000, 250 * 2 ** Math.min(this.failures, 6));
        if (this.failures === 1 || this.failures % 20 === 0) {
          this.options.logger.warn(
            { err: error, schema: this.options.schema, retryMs },
            "outbox publish failed; will retry",
          );
        }
        if (!this.stopped) await this.sleep(retryMs, false);
        continue;
      }
      if (this.stopped) break;
      if (published === undefined) {
        // Another replica's relay is publishing; what it did not claim is left for this one.
        this.turnsMissed++;
        await this.sleep(Math.min(idleMs, TURN_RETRY_MS * 2 ** Math.min(this.turnsMissed - 1, 6)), false);
        continue;
      }
      this.turnsMissed = 0;
      caughtUp = published < batchSize;
      if (published >= batchSize || this.wanted) continue;
      await this.sleep(idleMs, true);
      // Woken by the poll rather than a nudge: nothing to wait for.
      if (!this.wanted) caughtUp = false;
    }
  }

  /**
   * Publishes one batch; returns how many events went out (throws when one could not be), or
   * undefined when another replica's relay has the turn.
   */
  async drain(): Promise<number | undefined> {
    const { schema } = this.options;
    // Its own connection: under load the request pool has a queue, and events must not wait in it.
    // The turn is a session lock of that connection (a pool of one), so the unlock goes to the
    // session that locked; a connection that dies takes its lock with it.
    const db = this.options.db.background;
    // PGlite is one process's own database with one relay per outbox: nothing to share the
    // rows with, so it reads them without writing a lease on each.
    const leased = this.options.db.kind === "postgres";
    if (!leased) return this.publishBatch(db, false);
    const turn = await db.query<{ held: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext('voiceops.outbox'), hashtext($1)) AS held",
      [schema],
      { prepared: true },
    );
    if (!turn.rows[0]?.held) return undefined;
    try {
      return await this.publishBatch(db, true);
    } finally {
      await db.query("SELECT pg_advisory_unlock(hashtext('voiceops.outbox'), hashtext($1))", [schema], {
        prepared: true,
      });
    }
  }

  private async publishBatch(db: Queryable, leased: boolean): Promise<number> {
    const { schema, batchSize = 500 } = this.options;
    const claimed = await db.query<OutboxRow>(
      leased
        ? `UPDATE ${schema}.outbox SET claimed_until = now() + interval '30 seconds'
           WHERE seq IN (
             SELECT seq FROM ${schema}.outbox
             WHERE claimed_until IS NULL OR claimed_until < now()
             ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING seq, id, subject, payload, (extract(epoch FROM clock_timestamp() - created_at) * 1000)::float8 AS age_ms`
        : `SELECT seq, id, subject, payload, (extract(epoch FROM clock_timestamp() - created_at) * 1000)::float8 AS age_ms
           FROM ${schema}.outbox ORDER BY seq LIMIT $1`,
      [batchSize],
      { prepared: true },
    );
    const claimedAt = performance.now();
    const rows = [...claimed.rows].sort((a, b) => Number(a.seq) - Number(b.seq));
    const sent: number[] = [];
    const onSent = (row: OutboxRow) => {
      sent.push(Number(row.seq));
      outboxPublishLag.observe({ schema }, (Number(row.age_ms) + performance.now() - claimedAt) / 1000);
    };
    let failure: unknown;
    try {
      if (!(await this.publishTogether(rows, onSent))) failure = await this.publishEach(rows, onSent);
    } finally {
      if (sent.length > 0) {
        await db.query(`DELETE FROM ${schema}.outbox WHERE seq = ANY($1::bigint[])`, [sent], { prepared: true });
        outboxPublished.inc({ schema }, sent.length);
      }
      if (leased && sent.length < rows.length) {
        const done = new Set(sent);
        const unsent = rows.filter((row) => !done.has(Number(row.seq))).map((row) => Number(row.seq));
        await db.query(`UPDATE ${schema}.outbox SET claimed_until = NULL WHERE seq = ANY($1::bigint[])`, [unsent]);
      }
      await this.updateBacklog();
    }
    if (failure !== undefined) throw failure;
    return sent.length;
  }

  /**
   * The in-process bus takes the whole batch at once (each consumer applies it in one
   * transaction). Resolves false when it cannot, or a consumer failed: then the rows go out one
   * at a time, so those before the failing event are still sent (consumers that applied the
   * batch skip them as seen).
   */
  private async publishTogether(rows: OutboxRow[], onSent: (row: OutboxRow) => void): Promise<boolean> {
    const { bus } = this.options;
    if (!bus.publishAll || rows.length < 2) return false;
    try {
      await bus.publishAll(rows.map(messageOf));
    } catch {
      return false;
    }
    for (const row of rows) onSent(row);
    return true;
  }

  /**
   * Publishes in commit order, up to the window at a time; stops sending at the first failure,
   * which it resolves (undefined when every row went out).
   */
  private async publishEach(rows: OutboxRow[], onSent: (row: OutboxRow) => void): Promise<unknown> {
    const { bus } = this.options;
    const window = bus.kind === "memory" ? 1 : (this.options.window ?? 128);
    let failure: unknown;
    const inFlight = new Set<Promise<void>>();
    for (const row of rows) {
      if (failure !== undefined) break;
      const publish = bus.publish(messageOf(row)).then(
        () => onSent(row),
        (error: unknown) => {
          failure ??= error;
        },
      );
      const tracked = publish.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (inFlight.size >= window) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    return failure;
  }

  /** The backlog gauge: counted at most once a second while busy (a count is a scan). */
  private async updateBacklog(): Promise<void> {
    const { schema } = this.options;
    const db = this.options.db.background;
    const now = Date.now();
    if (now - this.backlogCheckedAt < 1_000) return;
    this.backlogCheckedAt = now;
    const backlog = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.outbox`);
    outboxBacklog.set({ schema }, Number(backlog.rows[0]?.n ?? 0));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }
}
