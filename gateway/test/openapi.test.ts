import { describe, expect, inject, it } from "vitest";
import { protoComments } from "@voiceops/proto/comments";
import { ResponseChecker } from "@voiceops/platform/testing";
import { API_SERVICES } from "../src/services.js";
import { collectRoutes } from "../src/transcoder/routes.js";

const baseUrl = inject("baseUrl");

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with version 1.0.0 and lists every served route", async () => {
    const res = await fetch(`${baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    for (const route of collectRoutes(API_SERVICES)) {
      expect(doc.paths[route.template]?.[route.verb], `${route.verb} ${route.template}`).toBeDefined();
    }
    for (const path of ["/health", "/api/health", "/health/live", "/api/health/live", "/health/ready"])
      expect(doc.paths[path]).toBeDefined();
  });

  it("documents limits and defaults as declared in proto", async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as any;
    const params = doc.paths["/api/contacts"].get.parameters as { name: string; schema: Record<string, unknown> }[];
    const pageSize = params.find((p) => p.name === "page_size")!.schema;
    // A parameter is given or not: never null.
    expect(pageSize).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 50 });
    const sort = params.find((p) => p.name === "sort")!.schema;
    expect(sort).toMatchObject({ enum: ["name", "name_desc", "newest"], default: "name" });
    expect(doc.paths["/api/contacts"].post.responses["201"]).toBeDefined();
    expect(doc.paths["/api/contacts/{contact_id}"].delete.responses["204"]).toBeDefined();
    expect(doc.paths["/api/contacts/{contact_id}"].delete.responses["403"]).toBeDefined();
    expect(doc.paths["/api/contacts"].get.description).toMatch(/explicit status overrides/);
    expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
  });

  it("serves a docs page (Swagger UI, its files from the gateway) over /openapi.json", async () => {
    const res = await fetch(`${baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const page = await res.text();
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const asset of page.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const served = await fetch(`${baseUrl}${asset[1]}`);
      expect(served.status, asset[1]).toBe(200);
      await served.arrayBuffer();
    }
    const init = await (await fetch(`${baseUrl}/docs/init.js`)).text();
    expect(init).toContain('"/openapi.json"');
    expect(init).toContain("SwaggerUIBundle");
  });
});

describe("OpenAPI document, exact enough to generate clients from", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;
  const routes = collectRoutes(API_SERVICES);
  const resolve = (schema: Record<string, unknown>) =>
    typeof schema.$ref === "string" ? doc.components.schemas[schema.$ref.split("/").pop() as string] : schema;
  const response = (r: Record<string, unknown>) =>
    typeof r.$ref === "string" ? doc.components.responses[r.$ref.split("/").pop() as string] : r;

  it("loads", async () => {
    doc = await (await fetch(`${baseUrl}/openapi.json`)).json();
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })]);
  });

  it("requires every field of a response, null only where the field is optional", () => {
    const contact = doc.components.schemas.Contact;
    expect(contact.required).toEqual(Object.keys(contact.properties));
    expect(contact.properties.id).toEqual({ type: "string", format: "uuid" });
    expect(contact.properties.created_at).toEqual({ type: "string", format: "date-time" });
    expect(contact.properties.email).toEqual({ type: ["string", "null"] });
    const request = doc.components.schemas.ServiceRequest;
    expect(request.properties.emergency_type).toMatchObject({
      type: ["string", "null"],
      enum: ["gas", "water", "electrical", "hvac", "structural", "other", null],
    });
    expect(request.properties.quote.anyOf).toEqual([{ $ref: "#/components/schemas/Quote" }, { type: "null" }]);
    expect(doc.components.schemas.TimeSeriesPoint.properties.date).toMatchObject({ type: "string", format: "date" });
  });

  it("never declares a success body that can be null", () => {
    for (const route of routes) {
      const success = doc.paths[route.template][route.verb].responses[String(route.successStatus)];
      const schema = success.content?.["application/json"]?.schema;
      if (route.successStatus === 204) {
        expect(schema, `${route.verb} ${route.template}`).toBeUndefined();
        continue;
      }
      const text = JSON.stringify(schema);
      expect(
        schema.anyOf === undefined && !(Array.isArray(schema.type) && schema.type.includes("null")),
        `${route.verb} ${route.template}: ${text}`,
      ).toBe(true);
      expect(success.content["application/json"].example, `${route.verb} ${route.template} example`).toBeDefined();
    }
  });

  it("declares the API key and every status each operation can answer, with the documented error bodies", () => {
    expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
    for (const route of routes) {
      const operation = doc.paths[route.template][route.verb];
      const where = `${route.verb} ${route.template}`;
      expect(operation.security, where).toEqual([{ ApiKeyAuth: [] }]);
      const statuses = Object.keys(operation.responses);
      for (const status of ["401", "422", "429", "503"]) expect(statuses, where).toContain(status);
      expect(statuses.includes("403"), `${where} 403`).toBe(route.roles.length > 0);
      if (route.pathFields.length > 0) expect(statuses, where).toContain("404");
      const takesBody = operation.requestBody !== undefined;
      expect(statuses.includes("413") && statuses.includes("415"), `${where} 413/415`).toBe(takesBody);
      for (const status of statuses.filter((s) => s !== "422" && Number(s) >= 400)) {
        expect(response(operation.responses[status]).content["application/json"].schema, `${where} ${status}`).toEqual({
          $ref: "#/components/schemas/Error",
        });
      }
      expect(response(operation.responses["422"]).content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/HTTPValidationError",
      });
      if (takesBody && operation.requestBody.content["application/json"])
        expect(operation.requestBody.content["application/json"].example, `${where} request example`).toBeDefined();
    }
    // The statuses a handler declares in proto.
    expect(doc.paths["/api/contacts"].post.responses["409"]).toBeDefined();
    expect(doc.paths["/api/technicians/dispatch"].post.responses["409"]).toBeDefined();
    expect(doc.paths["/api/contacts"].get.responses["409"]).toBeUndefined();
    expect(doc.paths["/api/contacts"].get.responses["404"]).toBeUndefined();
  });

  it("takes descriptions from the proto comments", () => {
    const phone = doc.components.schemas.Contact.properties.phone_number;
    expect(phone.description).toBe(protoComments["voiceops.crm.v1.Contact.phone_number"]);
    expect(phone.description).toMatch(/E\.164/);
    expect(resolve(doc.components.schemas.ServiceRequest).description).toBe(
      protoComments["voiceops.jobs.v1.ServiceRequest"],
    );
    expect(doc.paths["/api/contacts/{contact_id}"].get.description).toBe(
      protoComments["voiceops.crm.v1.CrmService.GetContact"],
    );
    expect(doc.tags).toContainEqual({ name: "crm", description: protoComments["voiceops.crm.v1.CrmService"] });
  });

  it("gives every operation examples that match their own schemas", () => {
    const checker = new ResponseChecker(doc);
    for (const route of routes) {
      const operation = doc.paths[route.template][route.verb];
      const body = operation.responses[String(route.successStatus)].content?.["application/json"];
      if (body)
        expect(
          checker.problem(route.verb, route.template, route.successStatus, body.example, true),
          `${route.verb} ${route.template}`,
        ).toBeUndefined();
    }
  });

  it("describes the health routes with their bodies", () => {
    for (const path of ["/health", "/api/health"]) {
      expect(doc.paths[path].get.security).toEqual([]);
      expect(doc.paths[path].get.responses["200"].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/HealthCheck",
      });
      expect(doc.paths[path].get.responses["503"]).toBeDefined();
    }
    expect(doc.paths["/health/live"].get.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Liveness",
    });
    expect(doc.paths["/health/ready"].get.responses["503"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Readiness",
    });
  });
});
