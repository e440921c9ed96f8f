import { describe, expect, it } from "vitest";
import { RouteTable } from "@voiceops/platform";
import { buildOpenApi } from "../src/openapi/document.js";
import { API_SERVICES } from "../src/services.js";
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

describe("the annotated routes, mounted before every other router", () => {
  it("share no path with a route the gateway serves by hand (health, sign-in, account, portal, pages, MCP)", () => {
    const table = new RouteTable<string>();
    for (const route of routes) table.add(route.verb, route.template, route.template);
    const annotated = new Set(routes.map((route) => route.template));
    const documented = Object.keys((buildOpenApi(routes) as { paths: Record<string, unknown> }).paths);
    const byHand = [...documented.filter((path) => !annotated.has(path)), ...UNDOCUMENTED];
    expect(byHand).toContain("/api/settings/business-hours");
    expect(byHand).toContain("/api/health");
    const taken = byHand.flatMap((template) => {
      const path = template.replace(/\{[^}]+\}/g, "x");
      return VERBS.flatMap((verb) => {
        const found = table.match(verb, path);
        return found || (verb === "OPTIONS" && table.verbsAt(path).length > 0) ? [`${verb} ${path}`] : [];
      });
    });
    expect(taken).toEqual([]);
    // The check finds a path an annotated route serves.
    expect(table.match("GET", "/api/contacts/x")?.value).toBe("/api/contacts/{contact_id}");
  });
});
