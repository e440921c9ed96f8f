import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { httpRequests, type Logger } from "@voiceops/platform";
import { hashApiKey } from "../identity/keys.js";
import type { Principal } from "../identity/store.js";

declare module "express-serve-static-core" {
  interface Request {
    requestId: string;
    /** SHA-256 of the X-API-Key header, computed once per request (rate limit and lookup). */
    apiKeyHash?: string;
    principal?: Principal;
    /** The route template that served the request, for logs and metrics. */
    routeName?: string;
  }
}

const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The route a request matched, as a template (never the path itself, which may hold ids,
 * phone numbers or names), for logs and metric labels.
 */
export function routeLabel(req: Request): string {
  if (req.routeName) return req.routeName;
  const path: unknown = req.route?.path;
  if (typeof path === "string") return `${req.method} ${path}`;
  if (Array.isArray(path) && path.includes(req.path)) return `${req.method} ${req.path}`;
  return "unmatched";
}

/** Request id (echoed when the caller sent a sane one), one log line and one metric per request. */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers["x-request-id"];
    req.requestId = typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", req.requestId);
    const key = req.headers["x-api-key"];
    if (typeof key === "string" && key !== "") req.apiKeyHash = hashApiKey(key);
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(req);
      httpRequests.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      logger.info(
        {
          requestId: req.requestId,
          orgId: req.principal?.orgId,
          method: req.method,
          route,
          status: res.statusCode,
          latencyMs: Math.round(seconds * 1000 * 10) / 10,
        },
        "request",
      );
    });
    next();
  };
}
