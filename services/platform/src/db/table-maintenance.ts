import type { Subscription } from "../bus/bus.js";
import type { Logger } from "../log.js";
import { runPeriodically } from "../periodic.js";
import type { Database } from "./database.js";

/**
 * How often a service looks after its tables where nothing else does. PostgreSQL serves many
 * more writes a second than PGlite, and its outbox takes as many dead rows.
 */
const MAINTENANCE_INTERVAL_MS = { pglite: 60_000, postgres: 10_000 } as const;

/** A table is analyzed once it spans this many pages and a fifth more than at its last count. */
const ANALYZE_MIN_PAGES = 10;
const ANALYZE_GROWTH = 1.2;

/** autovacuum_vacuum_threshold and autovacuum_vacuum_scale_factor's defaults. */
const DEAD_ROWS_BASE = 50;
const DEAD_ROWS_SHARE = 0.2;

/**
 * Where nothing else vacuums and analyzes a service's tables, the service does: at once and then
 * periodically, it analyzes the tables of its schema that grew and vacuums its churning ones and
 * any other of its tables that has gathered dead rows.
 * That is PGlite, which runs no autovacuum, and a PostgreSQL server whose autovacuum is off
 * (`autovacuum = off`: its outbox and count tables then fill with dead rows that every write and
 * scan of them wades through). On a PostgreSQL server with autovacuum on, a pass only reads
 * that setting.
 */
export function maintainPeriodically(
  db: Database,
  schema: string,
  churnTables: string[],
  logger: Logger,
): Subscription {
  let warned = false;
  return runPeriodically(
    "table maintenance",
    MAINTENANCE_INTERVAL_MS[db.kind],
    async () => {
      // Read at every pass: a server's autovacuum can be turned off (or on) while the service runs.
      if (db.kind === "postgres") {
        if (await serverAutovacuums(db)) return;
        if (!warned) {
          warned = true;
          logger.warn({ schema }, "PostgreSQL's autovacuum is off: this service vacuums and analyzes its own tables");
        }
      }
      // Before the vacuum, which records the churning tables' sizes as analyzing does.
      await analyzeGrownTables(db, schema);
      const deadRows = await tablesWithDeadRows(db, schema);
      await vacuumTables(db, [...new Set([...churnTables, ...deadRows])]);
    },
    logger,
  );
}

/** Whether the PostgreSQL server runs autovacuum (its `autovacuum` setting). */
export async function serverAutovacuums(db: Database): Promise<boolean> {
  const result = await db.query<{ setting: string }>("SELECT current_setting('autovacuum') AS setting");
  return result.rows[0]?.setting === "on";
}

/**
 * A table whose rows are deleted soon after they are written (an outbox: one dead row per event
 * published) grows for ever without a vacuum, and every scan of it with it (6,000 writes left
 * 2.4 MB of dead outbox rows); vacuuming lets new rows reuse the space.
 */
export async function vacuumTables(db: Database, tables: string[]): Promise<void> {
  // SKIP_LOCKED: another replica of the service vacuuming the same table is not waited for.
  for (const table of tables) await db.query(`VACUUM (SKIP_LOCKED) ${table}`);
}

/**
 * The schema's tables with more dead rows than autovacuum's default threshold lets stand (50 and
 * a fifth of the live rows): rows pruned in bulk (the consumers' ledger, expired idempotency
 * keys) or updated in place, whose space only a vacuum lets new rows reuse.
 */
export async function tablesWithDeadRows(db: Database, schema: string): Promise<string[]> {
  const dead = await db.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables
     WHERE schemaname = $1 AND n_dead_tup > $2 + $3::float8 * n_live_tup ORDER BY 1`,
    [schema, DEAD_ROWS_BASE, DEAD_ROWS_SHARE],
  );
  return dead.rows.map((row) => row.name);
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
