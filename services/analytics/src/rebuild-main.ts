import { ConfigError, createLogger, openBus, openDatabase, readInfraConfig } from "@voiceops/platform";
import { beginRebuild, REBUILD_SUBJECT } from "./store/generation.js";

// npm run analytics:rebuild: empties the read models and has every running analytics replica
// replay the retained event streams from the start (distributed mode: the in-process bus of the
// embedded mode keeps no history to replay).
try {
  const infra = readInfraConfig(process.env);
  if (!infra.databaseUrl)
    throw new ConfigError("DATABASE_URL", "is required: a rebuild replays the NATS streams into PostgreSQL");
  if (!infra.natsUrl) throw new ConfigError("NATS_URL", "is required: a rebuild replays the NATS streams");
  const logger = createLogger(infra.logLevel, "analytics-rebuild", undefined, infra.logFormat);
  const db = await openDatabase(infra, { name: "analytics-rebuild", poolSize: 1, logger });
  const bus = openBus(infra, { name: "analytics-rebuild", logger });
  const generation = await beginRebuild(db);
  // The announcement only speeds the replicas up: each also checks the generation on its own.
  for (let tries = 0; tries < 100 && !bus.healthy(); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  bus.broadcast(REBUILD_SUBJECT, new TextEncoder().encode(String(generation)));
  await bus.close();
  await db.close();
  process.stdout.write(`${JSON.stringify({ generation })}\n`);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
