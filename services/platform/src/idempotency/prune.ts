import type { Subscription } from "../bus/bus.js";
import { ConfigError } from "../config.js";
import type { Database } from "../db/database.js";
import type { Logger } from "../log.js";
import { runPeriodically } from "../periodic.js";
import { pruneExpiredKeys } from "./records.js";

/** How long a key's answer is kept when IDEMPOTENCY_TTL_HOURS is unset. */
const DEFAULT_IDEMPOTENCY_TTL_HOURS = 24;
const HOUR_SECONDS = 3600;

/** IDEMPOTENCY_TTL_HOURS in seconds: hours, fractions allowed (0.01 = 36 s), up to a year. */
export function idempotencyTtlSeconds(env: Record<string, string | undefined>): number {
  const raw = env.IDEMPOTENCY_TTL_HOURS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_IDEMPOTENCY_TTL_HOURS * HOUR_SECONDS;
  const hours = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(hours > 0) || hours > 8760)
    throw new ConfigError("IDEMPOTENCY_TTL_HOURS", `must be a number of hours above 0 and at most 8760, got "${raw}"`);
  return hours * HOUR_SECONDS;
}

/**
 * Deletes expired idempotency keys every hour (more often when keys live less than that), in
 * every service: several pruners share the table without waiting on one another (SKIP LOCKED).
 * An expired key is free even before it is pruned (a claim takes it over).
 */
export function pruneKeysPeriodically(db: Database, ttlSeconds: number, logger: Logger): Subscription {
  const intervalMs = Math.min(HOUR_SECONDS, Math.max(1, ttlSeconds / 2)) * 1000;
  return runPeriodically(
    "idempotency keys pruning",
    intervalMs,
    async () => {
      const deleted = await pruneExpiredKeys(db);
      if (deleted > 0) logger.info({ deleted }, "pruned expired idempotency keys");
    },
    logger,
  );
}
