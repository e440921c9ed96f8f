import { type Database, type Logger, runPeriodically, type Subscription } from "@voiceops/platform";
import type { DeliveryStore } from "../store/deliveries.js";

/** How often the webhooks service prunes what is past the retention, as services do their event ledgers. */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the delivery log to WEBHOOK_RETENTION_DAYS: the deliveries recorded before then (their
 * attempts with them) and the events left without deliveries are deleted at start and then
 * hourly. Without this the log grows by a row per event and endpoint, and more per attempt, for ever.
 */
export function pruneDeliveriesPeriodically(
  db: Database,
  deliveries: DeliveryStore,
  retentionDays: number,
  logger: Logger,
  now: () => Date,
): Subscription {
  return runPeriodically(
    "webhook deliveries pruning",
    PRUNE_INTERVAL_MS,
    async () => {
      const deleted = await deliveries.prune(db, new Date(now().getTime() - retentionDays * DAY_MS));
      if (deleted.deliveries + deleted.events > 0)
        logger.info({ ...deleted, retentionDays }, "pruned webhook deliveries past the retention");
    },
    logger,
  );
}
