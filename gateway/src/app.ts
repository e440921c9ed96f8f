import express, { type RequestHandler } from "express";
import { registry, type Database, type EventBus, type Logger, type PeerRegistry } from "@voiceops/platform";
import { docsPage } from "./docs.js";
import { mountHealth } from "./health.js";
import { authenticate } from "./http/authenticate.js";
import { jsonErrors } from "./http/json-errors.js";
import { rateLimit } from "./http/rate-limit.js";
import { requestContext } from "./http/request-context.js";
import type { PrincipalCache } from "./identity/principal-cache.js";
import { buildOpenApi } from "./openapi.js";
import { mountRoutes } from "./transcoder/mount.js";
import type { Route } from "./transcoder/routes.js";

export interface PublicAppDeps {
  routes: Route[];
  cache: PrincipalCache;
  peers: PeerRegistry;
  internalToken: string;
  logger: Logger;
  db: Database;
  bus: EventBus;
  /** Services whose health /health reports. */
  services: string[];
  rateLimitPerMinute: number;
}

/** The public REST API: health, docs, metrics and every transcoded route under /api. */
export function createPublicApp(deps: PublicAppDeps) {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestContext(deps.logger));
  app.use(rateLimit({ limit: deps.rateLimitPerMinute, windowMs: 60_000 }));

  mountHealth(app, deps);
  app.get("/metrics", async (_req, res) => {
    res.setHeader("content-type", registry.contentType);
    res.end(await registry.metrics());
  });
  const openapi = buildOpenApi(deps.routes);
  app.get("/openapi.json", (_req, res) => {
    res.json(openapi);
  });
  app.get("/docs", (_req, res) => {
    res.type("html").send(docsPage("/openapi.json"));
  });

  // Authentication and body parsing run only on known routes, so an unknown path is a 404.
  const api = express.Router();
  const guard: RequestHandler[] = [authenticate(deps.cache), express.json({ limit: "1mb" })];
  mountRoutes(api, deps.routes, { ...deps, before: guard });
  app.use(api);

  jsonErrors(app, deps.logger);
  return app;
}
