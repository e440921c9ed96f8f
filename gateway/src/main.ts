import {
  ConfigError,
  createLogger,
  envInt,
  envString,
  onShutdown,
  openBus,
  openDatabase,
  openObjectStore,
  peersFromEnv,
  readInfraConfig,
  runMain,
  SERVICE_NAMES,
  shutdownDelayMs,
  systemClock,
} from "@voiceops/platform";
import { startGateway } from "./gateway.js";
import { trustProxyFromEnv } from "./trust-proxy.js";

// Distributed mode: the gateway alone, calling services at their *_SERVICE_ADDR.
await runMain(async () => {
  const infra = readInfraConfig();
  if (!infra.databaseUrl) throw new ConfigError("DATABASE_URL", "is required when the gateway runs on its own");
  if (!infra.natsUrl) throw new ConfigError("NATS_URL", "is required when the gateway runs on its own");
  const internalToken = envString("INTERNAL_TOKEN");
  const config = {
    internalToken,
    adminToken: envString("ADMIN_TOKEN"),
    host: envString("HOST", "0.0.0.0"),
    port: envInt("PORT", 8080, { min: 0, max: 65535 }),
    adminHost: envString("ADMIN_HOST", "127.0.0.1"),
    adminPort: envInt("ADMIN_PORT", 8081, { min: 0, max: 65535 }),
    rateLimitPerMinute: envInt("RATE_LIMIT_PER_MINUTE", 600, { min: 1 }),
    trustProxy: trustProxyFromEnv(),
    poolSize: envInt("DB_POOL_SIZE", 10, { min: 1, max: 200 }),
    delayMs: shutdownDelayMs(),
  };
  const logger = createLogger(infra.logLevel, "gateway");
  const db = await openDatabase(infra, { name: "gateway", poolSize: config.poolSize, logger });
  const bus = openBus(infra, { name: "gateway", logger });
  const gateway = await startGateway({
    ...config,
    db,
    bus,
    peers: peersFromEnv(),
    logger,
    services: [...SERVICE_NAMES],
    objects: openObjectStore({ dataDir: infra.dataDir, internalToken, clock: systemClock }),
    clock: systemClock,
  });
  onShutdown(
    logger,
    {
      drain: () => gateway.drain(),
      async stop() {
        await gateway.stop();
        await bus.close();
        await db.close();
      },
    },
    { delayMs: config.delayMs },
  );
});
