import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "./database.js";
import { IDEMPOTENCY_TABLE, IDEMPOTENCY_TABLE_NAME } from "../idempotency/records.js";

// One lock for every schema: extensions are database-wide, so two services migrating at once
// could race on CREATE EXTENSION. Migrations are rare and short; serializing them is cheap.
const MIGRATION_LOCK = 7_263_001;

const SCHEMA_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * The tables every service schema has besides its own: the migration ledger, the
 * transactional outbox and the ledger of consumed events; and the database's one table of
 * idempotency keys, which every service's writes mark (idempotency/records.ts).
 */
function platformTables(schema: string): string {
  return `
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE SCHEMA IF NOT EXISTS ${schema};
    CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS ${schema}.outbox (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      subject text NOT NULL,
      payload bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      claimed_until timestamptz
    );
    CREATE TABLE IF NOT EXISTS ${schema}.processed_events (
      consumer text NOT NULL,
      event_id uuid NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, event_id)
    );
    ${IDEMPOTENCY_TABLE}
  `;
}

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads `NNN_name.sql` files from a folder, in version order. */
export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_.+\.sql$/.test(file))
    .map((file) => ({
      version: Number(file.split("_", 1)[0]),
      name: file,
      sql: readFileSync(join(dir, file), "utf8"),
    }))
    .sort((a, b) => a.version - b.version);
}

/** Whether every migration and platform table of the schema is there already (one cheap read, no lock). */
async function upToDate(db: Database, schema: string, migrations: Migration[]): Promise<boolean> {
  try {
    const result = await db.query<{ tables: boolean; versions: number[] | null }>(
      `SELECT to_regclass('${schema}.outbox') IS NOT NULL AND to_regclass('${schema}.processed_events') IS NOT NULL
                AND to_regclass('${IDEMPOTENCY_TABLE_NAME}') IS NOT NULL AS tables,
              (SELECT array_agg(version) FROM ${schema}.schema_migrations) AS versions`,
    );
    const row = result.rows[0];
    if (!row?.tables) return false;
    const done = new Set((row.versions ?? []).map(Number));
    return migrations.every((migration) => done.has(migration.version));
  } catch {
    return false;
  }
}

/**
 * Applies the pending migrations of one schema in one transaction, under an advisory lock.
 * A schema that is up to date costs one read (the usual restart).
 */
export async function migrate(db: Database, schema: string, migrations: Migration[]): Promise<number> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
  if (await upToDate(db, schema, migrations)) return 0;
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.exec(platformTables(schema));
    const applied = await tx.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations`);
    const done = new Set(applied.rows.map((row) => Number(row.version)));
    let count = 0;
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      count++;
    }
    return count;
  });
}
