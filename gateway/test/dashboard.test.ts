import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, inject, it } from "vitest";
import { apiTypes } from "../../web/scripts/api-types.js";

// The dashboard's build: its API types are those of the current OpenAPI document, and the
// gateway serves the built app at /app with cache headers, a CSP and no source maps.

const baseUrl = inject("baseUrl");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const webDist = join(root, "dist", "web");

describe("the dashboard", () => {
  it("its committed API types are generated from the current OpenAPI document (npm run generate -w web)", async () => {
    const committed = readFileSync(join(root, "web", "src", "api", "schema.d.ts"), "utf8");
    expect(committed === (await apiTypes()), "web/src/api/schema.d.ts is stale: run npm run generate -w web").toBe(
      true,
    );
  });

  it("is served at /app: the page revalidated, hashed assets cached for a year, every app path the same page", async () => {
    const page = await fetch(`${baseUrl}/app/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    const html = await page.text();
    const script = html.match(/src="(\/app\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toMatch(/max-age=31536000, immutable/);
    expect(await asset.text()).not.toMatch(/sourceMappingURL/);
    const deep = await fetch(`${baseUrl}/app/api-keys`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    expect((await fetch(`${baseUrl}/app`, { redirect: "manual" })).headers.get("location")).toBe("/app/");
    expect((await fetch(`${baseUrl}/app/assets/missing.js`)).status).toBe(404);
  });

  it("has no source maps and its first load is under 300 KB of compressed JavaScript", () => {
    const files = readdirSync(join(webDist, "assets"));
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    const html = readFileSync(join(webDist, "index.html"), "utf8");
    const scripts = [...html.matchAll(/\/app\/assets\/([^"]+\.js)/g)].map((m) => m[1] as string);
    const compressed = scripts.reduce(
      (sum, name) => sum + gzipSync(readFileSync(join(webDist, "assets", name))).length,
      0,
    );
    expect(compressed).toBeGreaterThan(0);
    expect(compressed).toBeLessThan(300 * 1024);
  });
});
