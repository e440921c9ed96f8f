import { describe, expect, it } from "vitest";
import { Router } from "express";
import { buildOpenApi } from "../src/openapi/document.js";
import { API_SERVICES } from "../src/services.js";
import { collectRoutes, expressPath } from "../src/transcoder/routes.js";

const routes = collectRoutes(API_SERVICES);
const VERBS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The pages and endpoints the gateway serves besides the documented paths. */
const UNDOCUMENTED = [
  "/openapi.json",
  "/docs",
  "/docs/init.js",
  "/docs/assets/x.css",
  "/app",
  "/app/",
  "/app/calls",
  "/files/x/y",
  "/mcp",
  "/portal/x",
];

/** The annotated routes in an Express router, as the gateway mounts them: the template that answers a request, if any. */
const router = Router();
for (const route of routes) {
  router[route.verb](expressPath(route.template), (req) => {
    (req as unknown as { done(template: string): void }).done(route.template);
  });
}
function served(method: string, url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = { method, url, headers: {}, done: resolve } as never;
    // Express answers OPTIONS itself where a route serves the path (Allow).
    const res = { setHeader: () => undefined, end: () => resolve("OPTIONS") } as never;
    router(req, res, () => resolve(undefined));
  });
}

describe("the annotated routes, mounted before every other router", () => {
  it("share no path with a route the gateway serves by hand (health, sign-in, account, portal, pages, MCP)", async () => {
    const annotated = new Set(routes.map((route) => route.template));
    const documented = Object.keys((buildOpenApi(routes) as { paths: Record<string, unknown> }).paths);
    const byHand = [...documented.filter((path) => !annotated.has(path)), ...UNDOCUMENTED];
    expect(byHand).toContain("/api/settings/business-hours");
    expect(byHand).toContain("/api/health");
    const taken: string[] = [];
    for (const template of byHand) {
      const path = template.replace(/\{[^}]+\}/g, "x");
      for (const verb of VERBS) if ((await served(verb, path)) !== undefined) taken.push(`${verb} ${path}`);
    }
    expect(taken).toEqual([]);
    // The check finds a path an annotated route serves, and Express's own OPTIONS answer.
    expect(await served("GET", "/api/contacts/x")).toBe("/api/contacts/{contact_id}");
    expect(await served("OPTIONS", "/api/contacts/x")).toBe("OPTIONS");
  });
});
