import { ConfigError, envInt, envString, readInfraConfig } from "./config.js";
import { createLogger } from "./log.js";
import { startOpsServer } from "./ops-server.js";
import { databaseState, openBus, openDatabase } from "./runtime.js";
import { PeerRegistry, startService, type ServiceModule } from "./service.js";
import { onShutdown, runMain, shutdownDelayMs } from "./shutdown.js";
import { systemClock } from "./clock.js";
import { openObjectStore } from "./objects/open.js";
import { serviceAddresses, serviceEntry } from "./registry.js";
import { startTracing } from "./tracing/sdk.js";

/** Where every registered service is (serviceAddresses), as the peers of this process. */
export function peersFromEnv(env: Record<string, string | undefined>): PeerRegistry {
  const peers = new PeerRegistry();
  for (const [name, url] of serviceAddresses(env)) peers.set(name, url);
  return peers;
}

/**
 * Distributed mode: one service in its own process, against PostgreSQL and NATS. A bad
 * configuration stops it with one line naming the variable.
 */
export function runServiceMain(module: ServiceModule): Promise<void> {
  return runMain(() => startStandalone(module));
}

async function startStandalone(module: ServiceModule): Promise<void> {
  // The environment is read here, once; what the service reads of it later comes from `env`.
  const env = process.env;
  const infra = readInfraConfig(env);
  if (!infra.databaseUrl) throw new ConfigError("DATABASE_URL", "is required when a service runs on its own");
  if (!infra.natsUrl) throw new ConfigError("NATS_URL", "is required when a service runs on its own");
  if (!infra.internalToken) throw new ConfigError("INTERNAL_TOKEN", "is required");
  const { internalToken } = infra;
  const host = envString("GRPC_HOST", "0.0.0.0", env);
  const port = envInt("GRPC_PORT", serviceEntry(module.name).port, { min: 1, max: 65535 }, env);
  const opsPort = envInt("OPS_PORT", port + 1000, { min: 1, max: 65535 }, env);
  const poolSize = envInt("DB_POOL_SIZE", 10, { min: 1, max: 200 }, env);
  const delayMs = shutdownDelayMs(env);
  const tracing = await startTracing(env, module.name);
  const peers = peersFromEnv(env);
  const objects = openObjectStore({ dataDir: infra.dataDir, internalToken, clock: systemClock }, env);
  const logger = createLogger(infra.logLevel, module.name, undefined, infra.logFormat);
  const db = await openDatabase(infra, { name: module.name, poolSize, logger });
  const bus = openBus(infra, { name: module.name, logger });
  const service = await startService(module, {
    db,
    bus,
    logger,
    internalToken,
    host,
    port,
    peers,
    objects,
    env,
    eventRetentionDays: infra.eventRetentionDays,
  });
  const ops = await startOpsServer({
    host,
    port: opsPort,
    logger,
    ready: async () => !service.draining && (await databaseState(db)) === "ok" && bus.healthy(),
  });
  onShutdown(
    logger,
    {
      drain: () => {
        service.drain();
        ops.drain();
      },
      async stop() {
        await service.stop();
        await ops.close();
        await bus.close();
        await db.close();
        await tracing?.shutdown();
      },
    },
    { delayMs },
  );
}
