import { describe, expect, inject, it } from "vitest";
import { API_SERVICES } from "../src/services.js";
import { collectRoutes } from "../src/transcoder/routes.js";

const baseUrl = inject("baseUrl");

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with version 1.0.0 and lists every served route", async () => {
    const res = await fetch(`${baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    for (const route of collectRoutes(API_SERVICES)) {
      expect(doc.paths[route.template]?.[route.verb], `${route.verb} ${route.template}`).toBeDefined();
    }
    for (const path of ["/health", "/api/health", "/health/live", "/api/health/live"]) expect(doc.paths[path]).toBeDefined();
  });

  it("documents limits and defaults as declared in proto", async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as any;
    const params = doc.paths["/api/contacts"].get.parameters as { name: string; schema: Record<string, unknown> }[];
    const pageSize = params.find((p) => p.name === "page_size")!.schema;
    expect(pageSize).toMatchObject({ type: ["integer", "null"], minimum: 1, maximum: 100, default: 50 });
    const sort = params.find((p) => p.name === "sort")!.schema;
    expect(sort).toMatchObject({ enum: ["name", "name_desc", "newest"], default: "name" });
    expect(doc.paths["/api/contacts"].post.responses["201"]).toBeDefined();
    expect(doc.paths["/api/contacts/{contact_id}"].delete.responses["204"]).toBeDefined();
    expect(doc.paths["/api/contacts/{contact_id}"].delete.responses["403"]).toBeDefined();
    expect(doc.paths["/api/contacts"].get.description).toMatch(/explicit status overrides/);
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
  });

  it("serves a docs page", async () => {
    const res = await fetch(`${baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("/openapi.json");
  });
});
