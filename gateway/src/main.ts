import { ConfigError, createLogger, envInt, envString, onShutdown, openBus, openDatabase, readInfraConfig, SERVICE_NAMES } from "@voiceops/platform";
import { peersFromEnv } from "@voiceops/platform";
import { startGateway } from "./gateway.js";

// Distributed mode: the gateway alone, calling services at their *_SERVICE_ADDR.
const infra = readInfraConfig();
if (!infra.databaseUrl) throw new ConfigError("DATABASE_URL", "is required when the gateway runs on its own");
if (!infra.natsUrl) throw new ConfigError("NATS_URL", "is required when the gateway runs on its own");
const logger = createLogger(infra.logLevel, "gateway");
const db = await openDatabase(infra, { name: "gateway", poolSize: envInt("DB_POOL_SIZE", 10, { min: 1, max: 200 }), logger });
const bus = openBus(infra, { name: "gateway", logger });
const gateway = await startGateway({
  db,
  bus,
  peers: peersFromEnv(),
  logger,
  internalToken: envString("INTERNAL_TOKEN"),
  adminToken: envString("ADMIN_TOKEN"),
  host: envString("HOST", "0.0.0.0"),
  port: envInt("PORT", 8080, { min: 0, max: 65535 }),
  adminHost: envString("ADMIN_HOST", "127.0.0.1"),
  adminPort: envInt("ADMIN_PORT", 8081, { min: 0, max: 65535 }),
  rateLimitPerMinute: envInt("RATE_LIMIT_PER_MINUTE", 600, { min: 1 }),
  services: [...SERVICE_NAMES],
});
onShutdown(logger, async () => {
  await gateway.stop();
  await bus.close();
  await db.close();
});
