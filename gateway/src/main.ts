import {
  ConfigError,
  createLogger,
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
  startTracing,
  systemClock,
} from "@voiceops/platform";
import { readGatewayConfig } from "./config.js";
import { startGateway } from "./gateway.js";

// Distributed mode: the gateway alone, calling the registered services at their addresses
// (*_SERVICE_ADDR or SERVICE_ADDR_TEMPLATE). It loads no service's code.
await runMain(async () => {
  // The environment is read here, once, and what it says is passed down.
  const env = process.env;
  const infra = readInfraConfig(env);
  if (!infra.databaseUrl) throw new ConfigError("DATABASE_URL", "is required when the gateway runs on its own");
  if (!infra.natsUrl) throw new ConfigError("NATS_URL", "is required when the gateway runs on its own");
  if (!infra.internalToken) throw new ConfigError("INTERNAL_TOKEN", "is required");
  const { internalToken } = infra;
  const config = readGatewayConfig(env);
  const adminToken = envString("ADMIN_TOKEN", undefined, env);
  const delayMs = shutdownDelayMs(env);
  const tracing = await startTracing(env, "gateway");
  const peers = peersFromEnv(env);
  const objects = openObjectStore({ dataDir: infra.dataDir, internalToken, clock: systemClock }, env);
  const logger = createLogger(infra.logLevel, "gateway");
  const db = await openDatabase(infra, { name: "gateway", poolSize: config.poolSize, logger });
  const bus = openBus(infra, { name: "gateway", logger });
  const gateway = await startGateway({
    ...config,
    internalToken,
    adminToken,
    db,
    bus,
    peers,
    logger,
    services: [...SERVICE_NAMES],
    objects,
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
        await tracing?.shutdown();
      },
    },
    { delayMs },
  );
});
