import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Express, type Response } from "express";
import { sendDetail } from "./errors/index.js";

// The dashboard's built files (web/, built by `npm install` or `npm run build` into dist/web),
// served at /app. Hashed assets are cached for a year; the page itself is revalidated each
// time, so a new build is picked up at once. Every other path under /app is the same page
// (the app routes in the browser).

export const WEB_DIR = fileURLToPath(new URL("../../dist/web", import.meta.url));
const YEAR_SECONDS = 365 * 24 * 3600;

/** What the pages may load: only their own files and the API of the same origin. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // uPlot and the bar widths set style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  // A call's recording: a signed URL of our own store, or the telephony provider's https URL.
  "media-src 'self' https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** The headers of every page the gateway serves from the web build (the dashboard and the portal). */
export function securityHeaders(res: Response): void {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
}

export function mountDashboard(app: Express, dir = WEB_DIR): void {
  const index = join(dir, "index.html");
  app.get("/app", (req, res, next) => (req.path === "/app" ? res.redirect(301, "/app/") : next()));
  app.use(
    "/app/assets",
    express.static(join(dir, "assets"), {
      index: false,
      fallthrough: false,
      setHeaders: (res) => {
        res.setHeader("Cache-Control", `public, max-age=${YEAR_SECONDS}, immutable`);
        res.setHeader("X-Content-Type-Options", "nosniff");
      },
    }),
  );
  app.get(/^\/app\/.*/, (_req, res, next) => {
    if (!existsSync(index)) return sendDetail(res, 503, "The dashboard is not built: run npm run build");
    securityHeaders(res);
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index, (error) => {
      if (error) next(error);
    });
  });
}
