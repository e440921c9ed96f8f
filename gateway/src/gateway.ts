import http from "node:http";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { migrate, readMigrations, type Database, type EventBus, type Logger, type PeerRegistry } from "@voiceops/platform";
import { createAdminApp } from "./admin/app.js";
import { createPublicApp } from "./app.js";
import { PrincipalCache } from "./identity/principal-cache.js";
import { IdentityStore } from "./identity/store.js";
import { API_SERVICES } from "./services.js";
import { collectRoutes } from "./transcoder/routes.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations", import.meta.url));

export interface GatewayOptions {
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
  /** Services /health reports on. */
  services: string[];
}

export interface RunningGateway {
  url: string;
  adminUrl: string;
  stop(): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** Starts the public REST listener and the admin listener. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger.child({ component: "gateway" });
  await migrate(options.db, "identity", readMigrations(MIGRATIONS_DIR));
  const store = new IdentityStore(options.db);
  const cache = new PrincipalCache(store, options.bus);
  const routes = collectRoutes(API_SERVICES);
  const app = createPublicApp({
    routes,
    cache,
    peers: options.peers,
    internalToken: options.internalToken,
    logger,
    db: options.db,
    bus: options.bus,
    services: options.services,
    rateLimitPerMinute: options.rateLimitPerMinute,
  });
  const admin = createAdminApp({ store, cache, adminToken: options.adminToken, logger });
  const publicServer = http.createServer({ keepAliveTimeout: 65_000 }, app);
  const adminServer = http.createServer(admin);
  const port = await listen(publicServer, options.port, options.host);
  const adminPort = await listen(adminServer, options.adminPort, options.adminHost);
  const shown = (host: string) => (host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host);
  logger.info({ port, adminPort, routes: routes.length }, "gateway listening");
  return {
    url: `http://${shown(options.host)}:${port}`,
    adminUrl: `http://${shown(options.adminHost)}:${adminPort}`,
    async stop() {
      await Promise.all([close(publicServer), close(adminServer)]);
    },
  };
}
