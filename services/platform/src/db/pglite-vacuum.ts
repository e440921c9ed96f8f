import type { Subscription } from "../bus/bus.js";
import type { Logger } from "../log.js";
import { runPeriodically } from "../periodic.js";
import type { Database } from "./database.js";

/** How often the churning tables of a service are vacuumed on PGlite. */
export const PGLITE_VACUUM_INTERVAL_MS = 60_000;

/**
 * PGlite runs no autovacuum. A table whose rows are deleted soon after they are written (an
 * outbox: one dead row per event published) then grows for ever, and every scan of it with it
 * (6,000 writes left 2.4 MB of dead outbox rows); vacuuming lets new rows reuse the space. On
 * PostgreSQL autovacuum does this, and nothing runs.
 */
export function vacuumPeriodically(db: Database, tables: string[], logger: Logger): Subscription | undefined {
  if (db.kind !== "pglite" || tables.length === 0) return undefined;
  return runPeriodically("vacuum", PGLITE_VACUUM_INTERVAL_MS, () => vacuumTables(db, tables), logger);
}

export async function vacuumTables(db: Database, tables: string[]): Promise<void> {
  for (const table of tables) await db.query(`VACUUM ${table}`);
}
