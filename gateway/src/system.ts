import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createLogger,
  envOptional,
  envString,
  isServiceModule,
  openBus,
  openDatabase,
  openObjectStore,
  PeerRegistry,
  systemClock,
  readInfraConfig,
  SERVICES,
  startService,
  startTracing,
  type Clock,
  type Database,
  type EventBus,
  type Logger,
  type ObjectStore,
  type RunningService,
  type ServiceModule,
} from "@voiceops/platform";
import { readGatewayConfig } from "./config.js";
import { startGateway } from "./gateway.js";

/**
 * A registered service's module, found by the convention every service folder keeps:
 * services/<name>/src/index.ts exports it as `<name>Service`. (The bundler includes every such
 * index in the embedded launcher's bundle; the gateway alone never loads one.)
 */
export async function loadServiceModule(name: string): Promise<ServiceModule> {
  const exports: Record<string, unknown> = await import(`../../services/${name}/src/index.ts`);
  const module = exports[`${name}Service`];
  if (!isServiceModule(module) || module.name !== name) {
    throw new Error(`services/${name}/src/index.ts must export its ServiceModule, named "${name}", as ${name}Service`);
  }
  return module;
}

interface SystemOptions {
  env?: Record<string, string | undefined>;
  /** Keep the embedded database in memory instead of under DATA_DIR (tests). */
  inMemory?: boolean;
  logger?: Logger;
  /** The services' clock (tests move it across time boundaries); the system clock by default. */
  clock?: Clock;
  /**
   * The gateway and the services call each other in process (default), through the same
   * interceptors as a network call; false sends every call over the services' loopback gRPC
   * ports, as in distributed mode.
   */
  inProcessCalls?: boolean;
}

export interface RunningSystem {
  url: string;
  adminUrl: string;
  adminToken: string;
  db: Database;
  bus: EventBus;
  services: RunningService[];
  /** Where the gateway and the services find each other (tests may point one elsewhere). */
  peers: PeerRegistry;
  objects: ObjectStore;
  logger: Logger;
  /** Readiness 503 and `Connection: close` from now on; still serving. */
  drain(): void;
  /** Drains the gateway's in-flight requests, then stops the services, the bus and the database. */
  stop(): Promise<void>;
}

/** The embedded mode's admin token: ADMIN_TOKEN, else one kept under DATA_DIR across restarts. */
function embeddedAdminToken(dataDir: string, inMemory: boolean, env: Record<string, string | undefined>): string {
  const given = envOptional("ADMIN_TOKEN", env);
  if (given) return given;
  if (inMemory) return randomBytes(24).toString("base64url");
  const file = join(dataDir, "admin-token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(24).toString("base64url");
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * The whole system in one process: every service on its own loopback gRPC port (for outside
 * callers), called in process by the gateway and the other services, and the gateway. Storage and bus follow DATABASE_URL and NATS_URL (embedded PGlite and the
 * in-process bus when unset).
 */
export async function startSystem(options: SystemOptions = {}): Promise<RunningSystem> {
  // The environment is read once, here; the services read their own settings from this same `env`.
  const env = options.env ?? process.env;
  const infra = readInfraConfig(env);
  const config = readGatewayConfig(env);
  const logger = options.logger ?? createLogger(infra.logLevel, undefined, undefined, infra.logFormat);
  const adminToken = infra.databaseUrl
    ? envString("ADMIN_TOKEN", undefined, env)
    : embeddedAdminToken(infra.dataDir, options.inMemory ?? false, env);
  const internalToken = infra.internalToken ?? randomBytes(24).toString("base64url");
  // Before anything is built: the parts that trace wrap themselves as they are made.
  const tracing = await startTracing(env, "voiceops");
  const modules: ServiceModule[] = [];
  for (const { name } of SERVICES) modules.push(await loadServiceModule(name));

  const db = await openDatabase(infra, {
    name: "voiceops",
    poolSize: config.poolSize,
    logger,
    inMemory: options.inMemory,
  });
  const bus = openBus(infra, { name: "voiceops", logger });
  const clock = options.clock ?? systemClock;
  // A system that keeps nothing (tests) keeps its objects in a temporary folder of its own.
  const objectsDir = options.inMemory ? mkdtempSync(join(tmpdir(), "voiceops-objects-")) : infra.dataDir;
  let publicUrl = "";
  const objects = openObjectStore({ dataDir: objectsDir, internalToken, clock, publicUrl: () => publicUrl }, env);
  const peers = new PeerRegistry(options.inProcessCalls ?? true);
  const services: RunningService[] = [];
  try {
    for (const module of modules) {
      services.push(
        await startService(module, {
          db,
          bus,
          logger,
          internalToken,
          host: "127.0.0.1",
          port: 0,
          peers,
          clock,
          objects,
          env,
          eventRetentionDays: infra.eventRetentionDays,
        }),
      );
    }
    const gateway = await startGateway({
      db,
      bus,
      peers,
      logger,
      internalToken,
      adminToken,
      host: config.host,
      port: config.port,
      adminHost: config.adminHost,
      adminPort: config.adminPort,
      rateLimitPerMinute: config.rateLimitPerMinute,
      portalRateLimitPerMinute: config.portalRateLimitPerMinute,
      trustProxy: config.trustProxy,
      slowClients: config.slowClients,
      publicUrl: config.publicUrl,
      idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      services: modules.map((m) => m.name),
      objects,
      clock,
    });
    publicUrl = gateway.url;
    return {
      url: gateway.url,
      adminUrl: gateway.adminUrl,
      adminToken,
      db,
      bus,
      services,
      peers,
      objects,
      logger,
      drain() {
        gateway.drain();
        for (const service of services) service.drain();
      },
      async stop() {
        await gateway.stop();
        for (const service of [...services].reverse()) await service.stop();
        await bus.close();
        await db.close();
        if (options.inMemory) rmSync(objectsDir, { recursive: true, force: true });
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    for (const service of services) await service.stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    throw error;
  }
}
