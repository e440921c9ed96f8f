import { isIPv6 } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { gatewayErrors, sendRefusal } from "../errors/index.js";
import { FixedWindowCounter, type WindowState } from "./fixed-window.js";

/** Paths that are never limited nor counted: probes and monitors must always get through. */
const HEALTH_PATHS = new Set(["/health", "/health/live", "/health/ready", "/api/health", "/api/health/live"]);

/**
 * The bucket of a client address: an IPv4 address, or the /64 network of an IPv6 address
 * (one host usually holds a whole /64, so single IPv6 addresses would be free for the taking).
 */
export function addressBucket(ip: string | undefined): string {
  if (!ip) return "unknown";
  if (ip.startsWith("::ffff:") && ip.includes(".")) return ip.slice(7);
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

interface RateLimitOptions {
  /** Requests per window, per API key and per client address. */
  limit: number;
  windowMs: number;
}

/**
 * Rate limits, per gateway replica (fixed windows in memory):
 *
 * - `byAddress` runs before authentication on every route but health: each request takes a
 *   point from its client address's bucket, and is refused with 429 once that bucket is empty,
 *   before any key is looked up. Made-up keys therefore cost their sender's address, not a
 *   fresh bucket each.
 * - `byKey` runs after authentication: a request with a valid key gives its address point back
 *   and takes one from the key's bucket instead, so clients with keys are limited per key.
 *
 * Every response carries RateLimit-Limit, -Remaining and -Reset (seconds) of the bucket that
 * counted it (the address's on health routes, which count nothing); a 429 carries Retry-After.
 */
export function rateLimits(options: RateLimitOptions) {
  const windowMs = Math.max(1, Math.round(options.windowMs / 1000)) * 1000;
  const addresses = new FixedWindowCounter(options.limit, windowMs);
  const keys = new FixedWindowCounter(options.limit, windowMs);

  const setHeaders = (res: Response, state: WindowState | undefined): number => {
    const reset = state ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : windowMs / 1000;
    res.setHeader("RateLimit-Limit", String(options.limit));
    res.setHeader("RateLimit-Remaining", String(state ? Math.max(0, options.limit - state.consumed) : options.limit));
    res.setHeader("RateLimit-Reset", String(reset));
    return reset;
  };
  const refuse = (res: Response, state: WindowState) => {
    const reset = setHeaders(res, state);
    res.setHeader("Retry-After", String(reset));
    sendRefusal(res, gatewayErrors.RATE_LIMITED());
  };

  return {
    byAddress(req: Request, res: Response, next: NextFunction) {
      const address = addressBucket(req.ip);
      if (HEALTH_PATHS.has(req.path)) {
        setHeaders(res, addresses.peek(address));
        return next();
      }
      const state = addresses.consume(address);
      if (!state.allowed) return refuse(res, state);
      setHeaders(res, state);
      req.rateLimitAddress = address;
      next();
    },

    byKey(req: Request, res: Response, next: NextFunction) {
      const principal = req.principal;
      if (!principal) return next();
      if (req.rateLimitAddress) {
        addresses.refund(req.rateLimitAddress);
        req.rateLimitAddress = undefined;
      }
      const state = keys.consume(principal.keyId);
      if (!state.allowed) return refuse(res, state);
      setHeaders(res, state);
      next();
    },
  };
}

declare module "express-serve-static-core" {
  interface Request {
    /** The address bucket this request took a point from, until a key takes over. */
    rateLimitAddress?: string;
  }
}
