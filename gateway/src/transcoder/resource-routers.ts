import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import type { Route } from "./routes.js";

/** A route's template as Express's router spells it: "/api/contacts/{contact_id}" -> "/api/contacts/:contact_id". */
export function expressPath(template: string): string {
  return template.replace(/\{([a-z_][a-z0-9_]*)\}/g, ":$1");
}

/** The path segment after /api ("contacts" in /api/contacts/{contact_id}), lower-cased as Express matches. */
function resourceOf(path: string): string | undefined {
  if (path.length <= 5 || path.slice(0, 5).toLowerCase() !== "/api/") return undefined;
  const end = path.indexOf("/", 5);
  return path.slice(5, end === -1 ? undefined : end).toLowerCase();
}

/**
 * The routes in Express routers, one per resource (/api/contacts, /api/leads...), and the
 * middleware that hands a request to its resource's router, found by the path's segment after
 * /api. Express then tries the few routes of one resource instead of walking every route in a
 * row; which route answers is still Express's matching, in the routes' order.
 */
export function resourceRouters(routes: Route[], handlersOf: (route: Route) => RequestHandler[]): RequestHandler {
  const routers = new Map<string, Router>();
  for (const route of routes) {
    const resource = resourceOf(route.template);
    if (resource === undefined || resource === "" || resource.includes("{"))
      throw new Error(`${route.template}: a route's path must start with /api/ and a fixed resource name`);
    let router = routers.get(resource);
    if (!router) {
      router = Router();
      routers.set(resource, router);
    }
    router[route.verb](expressPath(route.template), ...handlersOf(route));
  }
  return (req: Request, res: Response, next: NextFunction) => {
    const resource = resourceOf(req.path);
    const router = resource === undefined ? undefined : routers.get(resource);
    if (router) router(req, res, next);
    else next();
  };
}
