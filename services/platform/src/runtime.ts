import { join } from "node:path";
import type { EventBus } from "./bus/bus.js";
import { createMemoryBus } from "./bus/memory.js";
import { createNatsBus } from "./bus/nats.js";
import type { InfraConfig } from "./config.js";
import type { Database } from "./db/database.js";
import { createPgliteDatabase } from "./db/pglite.js";
import { createPostgresDatabase } from "./db/postgres.js";
import type { Logger } from "./log.js";
import { tracedBus } from "./tracing/messaging.js";
import { tracedDatabase } from "./tracing/sql.js";
import { tracingOn } from "./tracing/state.js";

/** PostgreSQL when DATABASE_URL is set, else embedded PGlite under DATA_DIR. */
export async function openDatabase(
  config: InfraConfig,
  options: { name: string; poolSize: number; logger: Logger; inMemory?: boolean },
): Promise<Database> {
  const db = await openUntracedDatabase(config, options);
  return tracingOn() ? tracedDatabase(db) : db;
}

async function openUntracedDatabase(
  config: InfraConfig,
  options: { name: string; poolSize: number; logger: Logger; inMemory?: boolean },
): Promise<Database> {
  if (config.databaseUrl) {
    return createPostgresDatabase({
      url: config.databaseUrl,
      poolSize: options.poolSize,
      pipelinedConnections: config.dbPipelinedConnections,
      applicationName: options.name,
      onError: (error) => options.logger.warn({ err: error }, "idle database connection lost"),
    });
  }
  return createPgliteDatabase(options.inMemory ? undefined : join(config.dataDir, "pg"), {
    readCache: config.embeddedReadCache,
  });
}

/** NATS JetStream when NATS_URL is set, else the in-process bus. */
export function openBus(config: InfraConfig, options: { name: string; logger: Logger }): EventBus {
  const bus = openUntracedBus(config, options);
  return tracingOn() ? tracedBus(bus) : bus;
}

function openUntracedBus(config: InfraConfig, options: { name: string; logger: Logger }): EventBus {
  if (config.natsUrl)
    return createNatsBus({
      url: config.natsUrl,
      name: options.name,
      logger: options.logger,
      prefix: config.natsPrefix,
      retentionDays: config.eventRetentionDays,
    });
  return createMemoryBus();
}

/** Database health as the health routes report it. */
export async function databaseState(db: Database): Promise<string> {
  try {
    await db.query("SELECT 1");
    return "ok";
  } catch {
    return "down";
  }
}
