import { readInfraConfig } from "../config.js";
import type { Database } from "../db/database.js";
import { migrate, readMigrations } from "../db/migrate.js";
import { createLogger } from "../log.js";
import { openDatabase } from "../runtime.js";
import type { ServiceModule } from "../service.js";
import { testEnv } from "./index.js";

/**
 * The run's database (PostgreSQL with DATABASE_URL, else PGlite in memory) with a service's
 * migrations applied: for tests of a store's statements against the real database. `env`
 * names another one (an isolated database's DATABASE_URL).
 */
export async function serviceDatabase(
  module: ServiceModule,
  name: string,
  env: Record<string, string | undefined> = testEnv(),
): Promise<Database> {
  const db = await openDatabase(readInfraConfig(env), {
    name,
    poolSize: 2,
    logger: createLogger("silent"),
    inMemory: true,
  });
  await migrate(db, module.schema, readMigrations(module.migrationsDir));
  return db;
}
