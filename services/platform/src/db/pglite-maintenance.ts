import type { Subscription } from "../bus/bus.js";
import type { Logger } from "../log.js";
import { runPeriodically } from "../periodic.js";
import type { Database } from "./database.js";

/** How often a service looks after its tables on PGlite. */
const PGLITE_MAINTENANCE_INTERVAL_MS = 60_000;

/** A table is analyzed once it spans this many pages and a fifth more than at its last count. */
const ANALYZE_MIN_PAGES = 10;
const ANALYZE_GROWTH = 1.2;

/**
 * PGlite runs no autovacuum, so nothing analyzes or vacuums its tables unless the service does:
 * at once and then every minute, it analyzes the tables of its schema that grew and vacuums its
 * churning ones. On PostgreSQL autovacuum does both, and nothing runs.
 */
export function maintainPeriodically(
  db: Database,
  schema: string,
  churnTables: string[],
  logger: Logger,
): Subscription | undefined {
  if (db.kind !== "pglite") return undefined;
  return runPeriodically(
    "pglite maintenance",
    PGLITE_MAINTENANCE_INTERVAL_MS,
    async () => {
      // Before the vacuum, which records the churning tables' sizes as analyzing does.
      await analyzeGrownTables(db, schema);
      await vacuumTables(db, churnTables);
    },
    logger,
  );
}

/**
 * A table whose rows are deleted soon after they are written (an outbox: one dead row per event
 * published) grows for ever without a vacuum, and every scan of it with it (6,000 writes left
 * 2.4 MB of dead outbox rows); vacuuming lets new rows reuse the space.
 */
export async function vacuumTables(db: Database, tables: string[]): Promise<void> {
  for (const table of tables) await db.query(`VACUUM ${table}`);
}

/**
 * Analyzes the schema's tables that grew since their statistics were taken (or that never had
 * any), and names them. A prepared statement keeps the generic plan it was given while its
 * tables were small until their statistics change: a plan that read a small table whole goes
 * on reading it whole at any size (analytics' records lookup did). New statistics make
 * PostgreSQL plan such statements again, from what the tables now hold.
 */
export async function analyzeGrownTables(db: Database, schema: string): Promise<string[]> {
  const grown = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
     FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r'
       AND pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest($2, c.relpages * $3::float8)
     ORDER BY 1`,
    [schema, ANALYZE_MIN_PAGES, ANALYZE_GROWTH],
  );
  for (const { name } of grown.rows) await db.query(`ANALYZE ${name}`);
  return grown.rows.map((row) => row.name);
}
