import { describe, expect, it } from "vitest";
import { Router } from "express";
import { API_SERVICES } from "../src/services.js";
import { allowHeader, RouteTable } from "@voiceops/platform";
import { collectRoutes } from "../src/transcoder/routes.js";

const routes = collectRoutes(API_SERVICES);
const table = new RouteTable<string>();
for (const route of routes) table.add(route.verb, route.template, `${route.verb} ${route.template}`);

type Outcome = { route: string; params: Record<string, string> } | { error: string } | { allow: string } | undefined;

/** Express's router with the routes registered in `collectRoutes`' order: the reference. */
const reference = Router();
for (const route of routes) {
  reference[route.verb](route.template.replace(/\{([a-z_][a-z0-9_]*)\}/g, ":$1"), (req) => {
    (req as unknown as { done(outcome: Outcome): void }).done({
      route: `${route.verb} ${route.template}`,
      params: { ...(req.params as Record<string, string>) },
    });
  });
}

function expressMatch(method: string, url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    const req = { method, url, headers: {}, done: resolve } as never;
    const res = {
      setHeader: (name: string, value: string) => {
        headers[name] = value;
      },
      end: () => resolve({ allow: headers.Allow ?? "" }),
    } as never;
    reference(req, res, (error?: unknown) => resolve(error ? { error: (error as Error).name } : undefined));
  });
}

/** The same request through the table, as the dispatcher uses it. */
function tableMatch(method: string, url: string): Outcome {
  try {
    const found = table.match(method, url);
    if (found) return { route: found.value, params: found.params };
    const verbs = method === "OPTIONS" ? table.verbsAt(url) : [];
    return verbs.length > 0 ? { allow: allowHeader(verbs) } : undefined;
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/** Request paths for each template: parameters filled with ids, literals of other routes, encodings, case and slashes. */
function pathsOf(template: string): string[] {
  const fill = (value: string) => template.replace(/\{[a-z_][a-z0-9_]*\}/g, value);
  const base = fill("0b5e6c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b");
  return [
    base,
    `${base}/`,
    `${base}//`,
    base.toUpperCase(),
    fill("search"),
    fill("pipeline"),
    fill("a%20b"),
    fill("%2F"),
    fill("%ZZ"),
    fill(""),
    `${base}/extra`,
    base.replace("/api/", "/api//"),
  ];
}

describe("route table", () => {
  it("matches every request path as Express's router does, with the same parameters", async () => {
    const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    let compared = 0;
    for (const route of routes) {
      for (const path of pathsOf(route.template)) {
        for (const method of methods) {
          expect(tableMatch(method, path), `${method} ${path}`).toEqual(await expressMatch(method, path));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("prefers a literal segment, and falls back to a parameter when the literal leads nowhere", () => {
    expect(table.match("GET", "/api/contacts/search")?.value).toBe("get /api/contacts/search");
    expect(table.match("GET", "/api/contacts/abc")?.value).toBe("get /api/contacts/{contact_id}");
    expect(table.match("GET", "/api/contacts/abc")?.params).toEqual({ contact_id: "abc" });
    expect(table.match("GET", "/api/nowhere")).toBeUndefined();
  });

  it("lists the verbs served at a path, for OPTIONS", () => {
    expect(table.verbsAt("/api/contacts/abc").sort()).toEqual(["delete", "get", "put"].sort());
    expect(table.verbsAt("/api/nowhere")).toEqual([]);
  });

  it("refuses two routes for one verb and template", () => {
    const twice = new RouteTable<number>();
    twice.add("get", "/a/{id}", 1);
    expect(() => twice.add("get", "/a/{id}", 2)).toThrow(/two routes/);
    expect(() => twice.add("post", "/a/{other}", 3)).toThrow(/another route/);
  });
});
