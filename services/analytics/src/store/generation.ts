import { Code, ConnectError } from "@connectrpc/connect";
import type { Queryable } from "@voiceops/platform";

/** Subject of the broadcast that tells every analytics replica a rebuild began. */
export const REBUILD_SUBJECT = "analytics.rebuild";

/** The read models' current generation. */
export async function currentGeneration(db: Queryable): Promise<number> {
  const result = await db.query<{ generation: number }>(`SELECT generation FROM analytics.meta WHERE id = 1`);
  return result.rows[0]?.generation ?? 0;
}

/** Thrown by a consumer of an older generation: its event is left to the new one. */
export class StaleGeneration extends ConnectError {
  constructor(readonly current: number) {
    super("read models were rebuilt", Code.Aborted);
  }
}

/**
 * Inside a consumer's transaction: holds the generation still (a rebuild waits for the
 * transaction) and refuses to apply an event for an older generation than the current one.
 */
export async function fenceGeneration(tx: Queryable, mine: number): Promise<void> {
  const result = await tx.query<{ generation: number }>(`SELECT generation FROM analytics.meta WHERE id = 1 FOR SHARE`);
  const current = result.rows[0]?.generation ?? 0;
  if (current !== mine) throw new StaleGeneration(current);
}

const READ_MODELS = [
  "analytics.counters",
  "analytics.records",
  "analytics.buckets",
  "analytics.daily",
  "analytics.upcoming",
  "analytics.portal_tokens",
];

/**
 * Starts a new generation: empties the read models and forgets which events they saw, in one
 * transaction that waits for the consumers' running transactions. Resolves the new generation.
 */
export async function beginRebuild(db: {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}): Promise<number> {
  return db.transaction(async (tx) => {
    const result = await tx.query<{ generation: number }>(
      `UPDATE analytics.meta SET generation = generation + 1 WHERE id = 1 RETURNING generation`,
    );
    await tx.query(`TRUNCATE ${READ_MODELS.join(", ")}`);
    await tx.query(`DELETE FROM analytics.processed_events`);
    return result.rows[0]?.generation ?? 0;
  });
}
