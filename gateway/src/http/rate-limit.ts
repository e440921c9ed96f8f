import type { NextFunction, Request, Response } from "express";
import { sendDetail } from "./errors.js";

interface Window {
  startedAt: number;
  count: number;
}

/**
 * Fixed-window limit per API key (per client address when no key is sent), counted by each
 * gateway replica. Every answer carries RateLimit-Limit, -Remaining and -Reset (seconds).
 */
export function rateLimit(options: { limit: number; windowMs: number; maxClients?: number }) {
  const windows = new Map<string, Window>();
  const maxClients = options.maxClients ?? 100_000;
  return (req: Request, res: Response, next: NextFunction) => {
    const now = Date.now();
    const client = req.apiKeyHash ? `k:${req.apiKeyHash}` : `a:${req.ip ?? "unknown"}`;
    let window = windows.get(client);
    if (!window || now - window.startedAt >= options.windowMs) {
      if (!window && windows.size >= maxClients) {
        for (const [name, w] of windows) if (now - w.startedAt >= options.windowMs) windows.delete(name);
        if (windows.size >= maxClients) windows.delete(windows.keys().next().value as string);
      }
      window = { startedAt: now, count: 0 };
      windows.set(client, window);
    }
    window.count++;
    const reset = Math.max(1, Math.ceil((window.startedAt + options.windowMs - now) / 1000));
    res.setHeader("RateLimit-Limit", String(options.limit));
    res.setHeader("RateLimit-Remaining", String(Math.max(0, options.limit - window.count)));
    res.setHeader("RateLimit-Reset", String(reset));
    if (window.count > options.limit) {
      res.setHeader("Retry-After", String(reset));
      sendDetail(res, 429, "Too many requests; retry after the time in Retry-After");
      return;
    }
    next();
  };
}
