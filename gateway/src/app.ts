import express, { type RequestHandler } from "express";
import type { Clock, Database, EventBus, Logger, ObjectStore, PeerRegistry, UrlSigner } from "@voiceops/platform";
import { tracingOn } from "@voiceops/platform";
import { authRoutes } from "./account/auth-routes.js";
import { accountRoutes } from "./account/routes.js";
import { mountDashboard } from "./dashboard.js";
import { mountDocs } from "./docs.js";
import { mountFiles } from "./files.js";
import { mountHealth } from "./health.js";
import { authenticate } from "./http/authenticate.js";
import { jsonBody } from "./http/json-body.js";
import { jsonErrors } from "./errors/index.js";
import { rateLimits } from "./http/rate-limit.js";
import { requestContext } from "./http/request-context.js";
import { traceRequests } from "./http/trace-request.js";
import type { PrincipalCache } from "./identity/principal-cache.js";
import type { IdentityStore } from "./identity/store.js";
import type { UserStore } from "./identity/users.js";
import type { CookieOptions } from "./http/session-cookie.js";
import { ToolCatalog } from "./mcp/catalog.js";
import type { LookupRecorder } from "./mcp/lookups.js";
import { mcpBody, mcpBodyErrors } from "./mcp/body.js";
import { bearerApiKey, mcpEndpoint } from "./mcp/server.js";
import { buildOpenApi } from "./openapi/document.js";
import { mountPortalPage } from "./portal/page.js";
import { portalApi } from "./portal/routes.js";
import { routeDispatcher } from "./transcoder/mount.js";
import type { Route } from "./transcoder/routes.js";

interface PublicAppDeps {
  routes: Route[];
  cache: PrincipalCache;
  store: IdentityStore;
  /** Dashboard users and their sessions, a second way to authenticate the same API. */
  users: UserStore;
  cookie: CookieOptions;
  /** Where set-up links point. */
  publicUrl: () => string;
  idempotencyTtlSeconds: number;
  peers: PeerRegistry;
  internalToken: string;
  logger: Logger;
  db: Database;
  bus: EventBus;
  /** Services whose health /health reports. */
  services: string[];
  rateLimitPerMinute: number;
  /** Customer-portal requests per token and minute (PORTAL_RATE_LIMIT_PER_MINUTE). */
  portalRateLimitPerMinute?: number;
  /** Express's "trust proxy": which proxies' X-Forwarded-For names the client address. */
  trustProxy?: boolean | number | string;
  /** Whether the gateway is draining (readiness answers 503). */
  draining?: () => boolean;
  objects: ObjectStore;
  /** Verifies the file store's download URLs. */
  fileSigner: UrlSigner;
  clock: Clock;
  /** Records the MCP read tools' calls (the gateway writes what is left of them when it stops). */
  lookups: LookupRecorder;
}

/** Names a request by its route before authentication, so that even a 401 is logged by it. */
function nameRoute(path: string): RequestHandler {
  return (req, _res, next) => {
    req.routeName = `${req.method} ${path}`;
    next();
  };
}

/** The public REST API: health, docs and every transcoded route under /api (metrics are on the admin listener). */
export function createPublicApp(deps: PublicAppDeps) {
  const app = express();
  app.disable("x-powered-by");
  // No ETag: hashing every JSON body costs more than the conditional GETs no client of this API sends.
  app.set("etag", false);
  app.set("trust proxy", deps.trustProxy ?? false);
  if (tracingOn()) app.use(traceRequests());
  app.use(requestContext(deps.logger));
  const limits = rateLimits({ limit: deps.rateLimitPerMinute, windowMs: 60_000 });
  app.use(limits.byAddress);

  // Authentication and body parsing run only on known routes, so an unknown path is a 404.
  const guard: RequestHandler[] = [authenticate(deps.cache, deps.users), limits.byKey, ...jsonBody("1mb")];
  // Agent tools over MCP, first: one layer for an annotated route's request to pass, where behind
  // them an /mcp request would try each of their routes in turn. Authenticated and limited as
  // /api is; the transport reads the body.
  const tools = new ToolCatalog({
    peers: deps.peers,
    internalToken: deps.internalToken,
    logger: deps.logger,
    clock: deps.clock,
    lookups: deps.lookups,
  });
  app.all(
    "/mcp",
    nameRoute("/mcp"),
    bearerApiKey,
    authenticate(deps.cache),
    limits.byKey,
    ...mcpBody(),
    mcpEndpoint(tools),
    mcpBodyErrors,
  );

  // The annotated routes next: most requests are theirs, Express tries its layers one by one,
  // and no other router serves their paths (routes-first.test.ts).
  app.use(routeDispatcher(deps.routes, { ...deps, before: guard }));

  mountHealth(app, deps);
  // Built on first use: it reads every field's options, which would slow start-up.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  app.get("/openapi.json", (_req, res) => {
    openapi ??= buildOpenApi(deps.routes);
    res.json(openapi);
  });
  mountDocs(app, "/openapi.json");
  mountDashboard(app);
  mountFiles(app, { objects: deps.objects, signer: deps.fileSigner, clock: deps.clock, logger: deps.logger });

  // The customer portal: its token is the credential.
  const portal = { ...deps, identity: deps.store };
  app.use(portalApi({ ...portal, perMinute: deps.portalRateLimitPerMinute ?? 60 }));
  mountPortalPage(app, portal);

  app.use(
    authRoutes({
      users: deps.users,
      store: deps.store,
      cache: deps.cache,
      cookie: deps.cookie,
      logger: deps.logger,
      body: jsonBody("64kb"),
    }),
  );
  app.use(
    accountRoutes(
      {
        users: deps.users,
        store: deps.store,
        cache: deps.cache,
        db: deps.db,
        idempotencyTtlSeconds: deps.idempotencyTtlSeconds,
        publicUrl: deps.publicUrl,
      },
      guard,
    ),
  );

  jsonErrors(app, deps.logger);
  return app;
}
