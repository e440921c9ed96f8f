import { ConfigError, envInt, envString, readInfraConfig } from "./config.js";
import { createLogger } from "./log.js";
import { startOpsServer } from "./ops-server.js";
import { databaseState, openBus, openDatabase } from "./runtime.js";
import { PeerRegistry, startService, type ServiceModule } from "./service.js";
import { onShutdown, runMain, shutdownDelayMs } from "./shutdown.js";
import { systemClock } from "./clock.js";
import { openObjectStore } from "./objects/open.js";
import { SERVICE_NAMES, SERVICE_PORTS, serviceAddrVariable } from "./topology.js";

/** Peer addresses from *_SERVICE_ADDR, defaulting to each service's port on this host. */
export function peersFromEnv(env: Record<string, string | undefined> = process.env): PeerRegistry {
  const peers = new PeerRegistry();
  for (const name of SERVICE_NAMES) {
    peers.set(name, envString(serviceAddrVariable(name), `http://127.0.0.1:${SERVICE_PORTS[name]}`, env));
  }
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
  const infra = readInfraConfig();
  if (!infra.databaseUrl) throw new ConfigError("DATABASE_URL", "is required when a service runs on its own");
  if (!infra.natsUrl) throw new ConfigError("NATS_URL", "is required when a service runs on its own");
  const internalToken = envString("INTERNAL_TOKEN");
  const host = envString("GRPC_HOST", "0.0.0.0");
  const port = envInt("GRPC_PORT", module.defaultPort, { min: 1, max: 65535 });
  const opsPort = envInt("OPS_PORT", port + 1000, { min: 1, max: 65535 });
  const poolSize = envInt("DB_POOL_SIZE", 10, { min: 1, max: 200 });
  const delayMs = shutdownDelayMs();
  const logger = createLogger(infra.logLevel, module.name);
  const db = await openDatabase(infra, { name: module.name, poolSize, logger });
  const bus = openBus(infra, { name: module.name, logger });
  const peers = peersFromEnv();
  const objects = openObjectStore({ dataDir: infra.dataDir, internalToken, clock: systemClock });
  const service = await startService(module, { db, bus, logger, internalToken, host, port, peers, objects });
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
      },
    },
    { delayMs },
  );
}
