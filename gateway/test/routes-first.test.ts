import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../src/openapi/document.js";
import { API_SERVICES } from "../src/services.js";
import { Router } from "express";
import { expressPath, resourceRouters } from "../src/transcoder/resource-routers.js";
import { collectRoutes } from "../src/transcoder/routes.js";

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

/** The annotated routes in Express routers, as the gateway mounts them: the template that answers a request, if any. */
const dispatch = resourceRouters(routes, (route) => [
  (req) => {
    (req as unknown as { done(template: string): void }).done(route.template);
  },
]);
/** The same routes in one Express router, in order: what the grouping must not change. */
const single = Router();
for (const route of routes) {
  single[route.verb](expressPath(route.template), (req) => {
    (req as unknown as { done(template: string): void }).done(route.template);
  });
}
function served(method: string, url: string, router = dispatch): Promise<string | undefined> {
  return new Promise((resolve) => {
    const path = new URL(url, "http://localhost").pathname;
    const req = { method, url, path, headers: {}, done: resolve } as never;
    // Express answers OPTIONS itself where a route serves the path (Allow).
    const res = { setHeader: () => undefined, end: () => resolve("OPTIONS") } as never;
    router(req, res, () => resolve(undefined));
  });
}

describe("the annotated routes, mounted before every other router but /mcp", () => {
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

describe("the annotated routes, grouped in one Express router per resource", () => {
  it("answer each request with the route one router of them all would pick", async () => {
    const urls = routes.flatMap((route) => {
      const path = route.template.replace(/\{[^}]+\}/g, "x");
      return [path, `${path}/`, path.toUpperCase(), `${path}x`, `${path}/x`, `${path}?q=1`];
    });
    urls.push("/api", "/api/", "/API", "/api//contacts", "/api/contacts%2Fx", "/apicontacts", "/x/api/contacts");
    const differing: string[] = [];
    for (const url of urls)
      for (const verb of VERBS) {
        const [grouped, one] = [await served(verb, url), await served(verb, url, single as never)];
        if (grouped !== one) differing.push(`${verb} ${url}: ${grouped} instead of ${one}`);
      }
    expect(differing).toEqual([]);
    expect(await served("GET", "/api/contacts/search")).toBe("/api/contacts/search");
    expect(await served("GET", "/API/Contacts/x")).toBe("/api/contacts/{contact_id}");
  });

  it("refuse a route whose path does not start with a fixed resource", () => {
    const route = { ...routes[0], template: "/api/{contact_id}" } as (typeof routes)[number];
    expect(() => resourceRouters([route], () => [])).toThrow(/fixed resource name/);
  });
});
