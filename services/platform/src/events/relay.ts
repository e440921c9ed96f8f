import type { EventBus } from "../bus/bus.js";
import type { Database } from "../db/database.js";
import type { Logger } from "../log.js";
import { outboxBacklog, outboxPublished } from "../metrics.js";

export interface OutboxRelayOptions {
  db: Database;
  bus: EventBus;
  schema: string;
  logger: Logger;
  batchSize?: number;
  idleMs?: number;
}

interface OutboxRow {
  seq: number;
  id: string;
  subject: string;
  payload: Uint8Array;
}

/**
 * Publishes what the service committed to its outbox. Rows are claimed for a short lease
 * (so replicas share the work without holding a transaction while publishing), published with
 * the event id as Nats-Msg-Id, then deleted. A crash between publish and delete republishes,
 * which JetStream de-duplicates and consumers ignore.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failures = 0;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** Asks for a prompt pass (called after a commit that wrote events). */
  nudge(): void {
    if (this.stopped || this.running) return;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.pass().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    const { idleMs = 1_000 } = this.options;
    let next = idleMs;
    try {
      const published = await this.drain();
      this.failures = 0;
      if (published > 0) next = 0;
    } catch (error) {
      this.failures++;
      next = Math.min(10_000, 250 * 2 ** Math.min(this.failures, 6));
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.options.logger.warn({ err: error, schema: this.options.schema, retryMs: next }, "outbox publish failed; will retry");
      }
    }
    this.schedule(next);
  }

  /** Publishes one batch; returns how many events went out. */
  async drain(): Promise<number> {
    const { db, bus, schema, batchSize = 100 } = this.options;
    const claimed = await db.query<OutboxRow>(
      `UPDATE ${schema}.outbox SET claimed_until = now() + interval '30 seconds'
       WHERE seq IN (
         SELECT seq FROM ${schema}.outbox
         WHERE claimed_until IS NULL OR claimed_until < now()
         ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING seq, id, subject, payload`,
      [batchSize],
    );
    const rows = [...claimed.rows].sort((a, b) => Number(a.seq) - Number(b.seq));
    const sent: string[] = [];
    try {
      for (const row of rows) {
        await bus.publish({ subject: row.subject, id: row.id, data: new Uint8Array(row.payload) });
        sent.push(row.id);
      }
    } finally {
      if (sent.length > 0) {
        await db.query(`DELETE FROM ${schema}.outbox WHERE id = ANY($1::uuid[])`, [sent]);
        outboxPublished.inc({ schema }, sent.length);
      }
      if (sent.length < rows.length) {
        const unsent = rows.slice(sent.length).map((row) => row.id);
        await db.query(`UPDATE ${schema}.outbox SET claimed_until = NULL WHERE id = ANY($1::uuid[])`, [unsent]);
      }
      const backlog = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.outbox`);
      outboxBacklog.set({ schema }, Number(backlog.rows[0]?.n ?? 0));
    }
    return sent.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
