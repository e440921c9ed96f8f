import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { DescService } from "@bufbuild/protobuf";
import { ConnectError, createClient, createRouterTransport, type Client, type Interceptor } from "@connectrpc/connect";
import { createMemoryBus } from "../bus/memory.js";
import { systemClock, type Clock } from "../clock.js";
import { createPgliteDatabase } from "../db/pglite.js";
import type { Database } from "../db/database.js";
import { migrate, readMigrations } from "../db/migrate.js";
import { OutboxRelay } from "../events/relay.js";
import { createLogger } from "../log.js";
import { FileObjectStore } from "../objects/file-store.js";
import { UrlSigner } from "../objects/signing.js";
import type { OrgContext } from "../rpc/org-context.js";
import { ownerCallHeaders } from "./rpc-server.js";
import { serverInterceptors, serviceRoutes } from "../rpc/server.js";
import { createServiceContext, PeerRegistry, type ServiceContext, type ServiceModule } from "../service.js";

/**
 * The fast test level: one service's handlers behind its real server interceptors (internal
 * token, org context, roles, field rules), called over Connect's in-memory transport, on an
 * in-memory PGlite with its migrations applied. No gateway, no HTTP, no other service.
 */
export interface HandlerTestbed {
  context: ServiceContext;
  db: Database;
  /** A client of `service` acting for `org` (a new organization when left out). */
  client<S extends DescService>(service: S, org?: Partial<OrgContext>): Client<S>;
  close(): Promise<void>;
}

export async function handlerTestbed(
  module: ServiceModule,
  options: { clock?: Clock; env?: Record<string, string | undefined> } = {},
): Promise<HandlerTestbed> {
  const db = await createPgliteDatabase(undefined);
  const bus = createMemoryBus();
  const logger = createLogger("silent", module.name);
  const internalToken = randomBytes(18).toString("base64url");
  const clock = options.clock ?? systemClock;
  const objectsRoot = mkdtempSync(join(tmpdir(), `${module.name}-objects-`));
  const objects = new FileObjectStore({
    root: objectsRoot,
    signer: new UrlSigner(internalToken),
    clock,
    publicUrl: () => "http://127.0.0.1",
  });
  await migrate(db, module.schema, readMigrations(module.migrationsDir));
  const relay = new OutboxRelay({ db, bus, schema: module.schema, logger });
  const context = createServiceContext(
    module,
    { db, bus, logger, internalToken, peers: new PeerRegistry(), clock, objects, env: options.env ?? {} },
    logger,
    relay,
  );
  const rpc = {
    name: module.name,
    internalToken,
    logger,
    routes: module.routes(context),
    health: async () => ({ database: "ok", bus: "ok" }),
  };
  const routes = serviceRoutes(rpc);
  const interceptors = serverInterceptors(rpc);
  return {
    context,
    db,
    client<S extends DescService>(service: S, org: Partial<OrgContext> = {}) {
      const headers = ownerCallHeaders(internalToken, org);
      // What the gateway sends with every call: the organization's context and the internal token.
      const withOrg: Interceptor = (next) => (req) => {
        for (const [name, value] of Object.entries(headers)) req.header.set(name, value);
        return next(req);
      };
      return createClient(
        service,
        createRouterTransport(routes, { router: { interceptors }, transport: { interceptors: [withOrg] } }),
      );
    },
    async close() {
      await relay.stop();
      await bus.close();
      await db.close();
      rmSync(objectsRoot, { recursive: true, force: true });
    },
  };
}

/** The error a call fails with; the test fails when the call succeeds. */
export async function failureOf(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call succeeded");
}
