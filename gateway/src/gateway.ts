import http from "node:http";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import {
  configureProtobufTextEncoding,
  drainableHttpServer,
  fileUrlSigner,
  migrate,
  readMigrations,
  type Clock,
  type Database,
  type EventBus,
  type Logger,
  type ObjectStore,
  type PeerRegistry,
} from "@voiceops/platform";
import { createAdminApp } from "./admin/app.js";
import { LookupRecorder } from "./mcp/lookups.js";
import { createPublicApp } from "./app.js";
import { createPublicServer, type SlowClientLimits } from "./http/slow-clients.js";
import { PrincipalCache } from "./identity/principal-cache.js";
import { IdentityStore } from "./identity/store.js";
import { UserStore } from "./identity/users.js";
import { API_SERVICES } from "./services.js";
import { collectRoutes } from "./transcoder/routes.js";

const PRUNE_INTERVAL_MS = 10 * 60_000;
const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations", import.meta.url));

interface GatewayOptions {
  db: Database;
  bus: EventBus;
  peers: PeerRegistry;
  logger: Logger;
  internalToken: string;
  adminToken: string;
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  rateLimitPerMinute: number;
  portalRateLimitPerMinute?: number;
  /** Express's "trust proxy" (TRUST_PROXY): which proxies' X-Forwarded-For gives the client address. */
  trustProxy?: boolean | number | string;
  /** PUBLIC_URL: where users reach the gateway; unset = its own listening address. */
  publicUrl?: string;
  idempotencyTtlSeconds: number;
  /** Services /health reports on. */
  services: string[];
  /** Where upload routes put files, and what /files serves. */
  objects: ObjectStore;
  clock: Clock;
  /** Request timeouts and connections per client address of the public listener. */
  slowClients: SlowClientLimits;
}

interface RunningGateway {
  url: string;
  adminUrl: string;
  /** Readiness 503 and `Connection: close` on every response from now on; still serving. */
  drain(): void;
  /** Stops accepting, closes idle connections, lets in-flight requests finish, then closes. */
  stop(): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Starts the public REST listener and the admin listener. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  configureProtobufTextEncoding();
  const logger = options.logger.child({ component: "gateway" });
  await migrate(options.db, "identity", readMigrations(MIGRATIONS_DIR));
  const store = new IdentityStore(options.db);
  const cache = new PrincipalCache(store, options.bus);
  const users = new UserStore(options.db);
  let publicUrl = options.publicUrl ?? "";
  const cookie = { secure: publicUrl.startsWith("https:") };
  const routes = collectRoutes(API_SERVICES);
  let draining = false;
  const lookups = new LookupRecorder({ peers: options.peers, internalToken: options.internalToken, logger });
  const app = createPublicApp({
    routes,
    cache,
    store,
    users,
    cookie,
    publicUrl: () => publicUrl,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds,
    peers: options.peers,
    internalToken: options.internalToken,
    logger,
    db: options.db,
    bus: options.bus,
    services: options.services,
    rateLimitPerMinute: options.rateLimitPerMinute,
    portalRateLimitPerMinute: options.portalRateLimitPerMinute,
    trustProxy: options.trustProxy,
    draining: () => draining,
    objects: options.objects,
    fileSigner: fileUrlSigner(options.internalToken),
    clock: options.clock,
    lookups,
  });
  const admin = createAdminApp({
    store,
    cache,
    users,
    publicUrl: () => publicUrl,
    adminToken: options.adminToken,
    logger,
  });
  const publicServer = createPublicServer(app, options.slowClients);
  publicServer.keepAliveTimeout = 65_000;
  const adminServer = http.createServer(admin);
  const listeners = [drainableHttpServer(publicServer), drainableHttpServer(adminServer)];
  // The admin listener first: once the public port answers, the admin API does too (an operator
  // runs npm run apikey as soon as /health/live answers).
  const adminPort = await listen(adminServer, options.adminPort, options.adminHost);
  const port = await listen(publicServer, options.port, options.host);
  const shown = (host: string) => (host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host);
  publicUrl ||= `http://${shown(options.host)}:${port}`;
  // Ended sessions, used set-up links and old failed sign-ins are deleted now and then.
  const pruning = setInterval(
    () => users.prune().catch((error: unknown) => logger.warn({ err: error }, "pruning sessions failed")),
    PRUNE_INTERVAL_MS,
  );
  pruning.unref();
  logger.info({ port, adminPort, routes: routes.length }, "gateway listening");
  return {
    url: `http://${shown(options.host)}:${port}`,
    adminUrl: `http://${shown(options.adminHost)}:${adminPort}`,
    drain() {
      draining = true;
      for (const listener of listeners) listener.drain();
    },
    async stop() {
      draining = true;
      clearInterval(pruning);
      await Promise.all(listeners.map((listener) => listener.close()));
      await lookups.close();
    },
  };
}
