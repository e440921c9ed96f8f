import type { Subscription } from "../bus/bus.js";
import type { Database } from "../db/database.js";
import { firstIdAt } from "../ids.js";
import type { Logger } from "../log.js";
import { runPeriodically } from "../periodic.js";

/** How often a service prunes its schema's ledger of processed events. */
const LEDGER_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
/** Rows deleted per statement, so that no statement holds the table for long. */
const PRUNE_BATCH = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the ledger rows of events made before `before`, of every consumer of the schema.
 * Event ids are UUIDv7 (newEvent), so "made before" is a range of the primary key
 * (consumer, event_id): no index on processed_at, no scan of the table. The consumers are
 * found by skipping along the same key, one probe each. Returns the rows deleted.
 */
export async function pruneProcessedEvents(
  db: Database,
  schema: string,
  before: Date,
  batch = PRUNE_BATCH,
): Promise<number> {
  const table = `${schema}.processed_events`;
  const consumers = await db.query<{ consumer: string }>(
    `WITH RECURSIVE c(consumer) AS (
       (SELECT consumer FROM ${table} ORDER BY consumer LIMIT 1)
       UNION ALL
       SELECT (SELECT p.consumer FROM ${table} p WHERE p.consumer > c.consumer ORDER BY p.consumer LIMIT 1) FROM c WHERE c.consumer IS NOT NULL
     )
     SELECT consumer FROM c WHERE consumer IS NOT NULL`,
  );
  const bound = firstIdAt(before);
  let deleted = 0;
  for (const { consumer } of consumers.rows) {
    for (;;) {
      const result = await db.query(
        `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE consumer = $1 AND event_id < $2::uuid LIMIT $3))`,
        [consumer, bound, batch],
      );
      deleted += result.rowCount;
      if (result.rowCount < batch) break;
    }
  }
  return deleted;
}

/**
 * Keeps the ledger to the events the bus can still deliver: a consumer records each event it
 * applied so that a redelivery is skipped, and an event older than the streams keep
 * (EVENT_RETENTION_DAYS) can never be delivered again, so its record guards nothing. Without
 * this the ledger grows by a row per event and consumer for ever.
 */
export function pruneLedgerPeriodically(
  db: Database,
  schema: string,
  retentionDays: number,
  logger: Logger,
  now: () => Date = () => new Date(),
): Subscription {
  return runPeriodically(
    "processed events pruning",
    LEDGER_PRUNE_INTERVAL_MS,
    async () => {
      const deleted = await pruneProcessedEvents(db, schema, new Date(now().getTime() - retentionDays * DAY_MS));
      if (deleted > 0) logger.info({ schema, deleted }, "pruned the ledger of processed events past the retention");
    },
    logger,
  );
}
