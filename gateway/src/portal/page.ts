import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Express } from "express";
import { securityHeaders, WEB_DIR } from "../dashboard.js";
import { sendDetail } from "../errors/index.js";
import { PortalContext, PortalFailure, type PortalDeps } from "./portal-context.js";

// `GET /portal/<token>`: the customer's page, built from web/ (web/portal.html) into dist/web
// beside the dashboard; its hashed assets are the dashboard's (/app/assets, cached a year). The
// token is checked first: an unknown, revoked or expired one answers a plain 404 page that
// shows nothing of any contact. The page is never stored (its answer depends on the token).

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><link rel="icon" href="data:,"><style>body{font-family:system-ui,sans-serif;color:#1f2937;background:#f9fafb;margin:0;line-height:1.5}main{max-width:36rem;margin:10vh auto 0;padding:1rem}</style></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;

const NOT_FOUND = page(
  "This link is not valid",
  "The link to your page is unknown, has expired or was withdrawn. Please ask the business for a new link.",
);
const UNAVAILABLE = page("Your page is unavailable", "Your page cannot be shown right now. Please try again later.");

export function mountPortalPage(app: Express, deps: PortalDeps, dir = WEB_DIR): void {
  const built = join(dir, "portal.html");
  app.get("/portal/:token", async (req, res, next) => {
    securityHeaders(res);
    res.setHeader("Cache-Control", "no-store");
    try {
      await PortalContext.open(deps, String(req.params.token), req.requestId);
    } catch (error) {
      if (!(error instanceof PortalFailure)) return next(error);
      // A malformed token is as unknown as a revoked one.
      if (error.status < 500) return res.status(404).type("html").send(NOT_FOUND);
      return res.status(error.status).type("html").send(UNAVAILABLE);
    }
    if (!existsSync(built)) return sendDetail(res, 503, "The portal is not built: run npm run build");
    res.sendFile(built, (error) => {
      if (error) next(error);
    });
  });
}
