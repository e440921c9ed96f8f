import { hasOption } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { http } from "@voiceops/proto/google/api/annotations_pb";
import { CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { decodeRequest, locate } from "../src/transcoder/request.js";
import { collectRoutes, type Route } from "../src/transcoder/routes.js";
import { API_SERVICES } from "../src/services.js";
import { writeMessage } from "../src/transcoder/json-codec.js";
import { HTTP_STATUS_OF_CODE } from "../src/errors/index.js";
import { Code } from "@connectrpc/connect";

const routes = collectRoutes([CrmService]);
const route = (verb: string, template: string): Route => {
  const found = routes.find((r) => r.verb === verb && r.template === template);
  if (!found) throw new Error(`no route ${verb} ${template}`);
  return found;
};

describe("route table", () => {
  it("mounts every annotated RPC once", () => {
    // Internal RPCs (UpsertContact, FindContactByPhone) have no http annotation and no route.
    expect(routes).toHaveLength(CrmService.methods.filter((method) => hasOption(method, http)).length);
    expect(routes.length).toBe(CrmService.methods.length - 2);
  });

  it("tries literal segments before parameters", () => {
    const order = routes.map((r) => `${r.verb} ${r.template}`);
    expect(order.indexOf("get /api/contacts/search")).toBeLessThan(order.indexOf("get /api/contacts/{contact_id}"));
    expect(order.indexOf("get /api/leads/pipeline")).toBeLessThan(order.indexOf("get /api/leads/{lead_id}"));
  });

  it("tries every route before any less specific one that could match the same path, across all services", () => {
    const all = collectRoutes(API_SERVICES);
    const segments = (r: Route) => r.template.split("/");
    for (const [i, a] of all.entries()) {
      for (const b of all.slice(i + 1)) {
        const [sa, sb] = [segments(a), segments(b)];
        if (a.verb !== b.verb || sa.length !== sb.length) continue;
        // Two templates that some path matches both: at every position equal, or a parameter.
        const overlap = sa.every((part, k) => part === sb[k] || part.startsWith("{") || sb[k]?.startsWith("{"));
        const first = sa.findIndex((part, k) => part.startsWith("{") !== sb[k]?.startsWith("{"));
        if (overlap && first >= 0)
          expect(sa[first]?.startsWith("{"), `${a.template} is tried before ${b.template}`).toBe(false);
      }
    }
    const order = all.map((r) => `${r.verb} ${r.template}`);
    expect(order.indexOf("get /api/technicians/dispatch/active")).toBeLessThan(
      order.indexOf("get /api/technicians/dispatch/{dispatch_id}"),
    );
    expect(order.indexOf("get /api/technicians/dispatch")).toBeLessThan(
      order.indexOf("get /api/technicians/{technician_id}"),
    );
  });

  it("reads statuses, roles and bodies from the annotations", () => {
    expect(route("post", "/api/contacts").successStatus).toBe(201);
    expect(route("delete", "/api/contacts/{contact_id}").roles).toEqual(["owner", "admin"]);
    expect(route("put", "/api/contacts/{contact_id}").body).toMatchObject({ name: "contact" });
    expect(route("get", "/api/contacts").queryFields.map((f) => f.name)).toEqual([
      "page",
      "page_size",
      "status",
      "search",
      "prospects",
      "sort",
    ]);
  });
});

describe("decodeRequest", () => {
  it("parses query text into typed fields and applies defaults", () => {
    const { message, errors } = decodeRequest(route("get", "/api/contacts"), {
      params: {},
      query: { page_size: "20", prospects: "true", sort: "newest" },
      body: undefined,
      country: "US",
    });
    expect(errors).toEqual([]);
    expect(message).toMatchObject({ page: 1, pageSize: 20, prospects: true, sort: 3 });
  });

  it("reports every bad query field in declaration order with its location", () => {
    const { errors } = decodeRequest(route("get", "/api/contacts"), {
      params: {},
      query: { sort: "x", page_size: "abc", page: "0" },
      body: undefined,
      country: "US",
    });
    expect(errors.map((e) => [e.loc, e.type])).toEqual([
      [["query", "page"], "greater_than_equal"],
      [["query", "page_size"], "int_parsing"],
      [["query", "sort"], "enum"],
    ]);
  });

  it("places path and body fields, and fills the update mask from the body's keys", () => {
    const { message, errors } = decodeRequest(route("put", "/api/contacts/{contact_id}"), {
      params: { contact_id: "018f0000-0000-7000-8000-000000000000" },
      query: {},
      body: { email: null, name: "Ann", unknown: 1 },
      country: "US",
    });
    expect(errors).toEqual([]);
    expect((message.updateMask as { paths: string[] }).paths).toEqual(["email", "name"]);
    expect(message.contact).toMatchObject({ name: "Ann" });
    expect((message.contact as { email?: string }).email).toBeUndefined();

    const bad = decodeRequest(route("put", "/api/contacts/{contact_id}"), {
      params: { contact_id: "x" },
      query: {},
      body: { name: 5, status: null, tags: "a" },
      country: "US",
    });
    expect(bad.errors.map((e) => [e.loc, e.type])).toEqual([
      [["path", "contact_id"], "uuid_parsing"],
      [["body", "name"], "string_type"],
      [["body", "status"], "enum"],
      [["body", "tags"], "list_type"],
    ]);
  });

  it("requires the body of a body route", () => {
    const { errors } = decodeRequest(route("post", "/api/contacts/bulk-delete"), {
      params: {},
      query: {},
      body: undefined,
      country: "US",
    });
    expect(errors).toEqual([expect.objectContaining({ loc: ["body"], type: "missing" })]);
  });

  it("maps service field paths back to HTTP locations", () => {
    expect(locate(route("put", "/api/contacts/{contact_id}"), "contact.phone_number")).toEqual([
      "body",
      "phone_number",
    ]);
    expect(locate(route("post", "/api/contacts"), "phone_number")).toEqual(["body", "phone_number"]);
    expect(locate(route("post", "/api/contacts/bulk-delete"), "ids.3")).toEqual(["body", "ids", 3]);
    expect(locate(route("get", "/api/contacts"), "page_size")).toEqual(["query", "page_size"]);
    expect(locate(route("get", "/api/leads/{lead_id}"), "lead_id")).toEqual(["path", "lead_id"]);
    expect(locate(route("post", "/api/contacts"), "")).toEqual(["body"]);
  });
});

describe("responses", () => {
  it("writes every field, unset ones as null, enums short and int64 as numbers", () => {
    const lead = routes.find((r) => r.template === "/api/leads/{lead_id}" && r.verb === "get")!.method.output;
    const json = writeMessage(lead, { lead: undefined } as never);
    expect(json).toEqual({ lead: null });
  });

  it("maps Connect codes to the documented HTTP statuses", () => {
    expect(HTTP_STATUS_OF_CODE[Code.InvalidArgument]).toBe(422);
    expect(HTTP_STATUS_OF_CODE[Code.NotFound]).toBe(404);
    expect(HTTP_STATUS_OF_CODE[Code.AlreadyExists]).toBe(409);
    expect(HTTP_STATUS_OF_CODE[Code.PermissionDenied]).toBe(403);
    expect(HTTP_STATUS_OF_CODE[Code.Unauthenticated]).toBe(401);
    expect(HTTP_STATUS_OF_CODE[Code.ResourceExhausted]).toBe(429);
    expect(HTTP_STATUS_OF_CODE[Code.Unavailable]).toBe(503);
    expect(HTTP_STATUS_OF_CODE[Code.DeadlineExceeded]).toBe(504);
    expect(HTTP_STATUS_OF_CODE[Code.Internal]).toBe(500);
  });
});

describe("request fields bound to a header (FieldRules.header)", () => {
  const [create] = collectRoutes([CommsService]).filter((r) => r.verb === "post" && r.template === "/api/activities");
  if (!create) throw new Error("no POST /api/activities");

  it("are read from their header only: not from the body, nor the query", () => {
    expect(create.headerFields.map((h) => [h.field.name, h.header])).toEqual([["internal_key", "x-internal-key"]]);
    const fromHeader = decodeRequest(create, {
      params: {},
      query: {},
      body: { activity_type: "NOTE" },
      headers: { "x-internal-key": "k1" },
      country: "US",
    });
    expect(fromHeader.errors).toEqual([]);
    expect(fromHeader.message).toMatchObject({ internalKey: "k1" });
    const fromBody = decodeRequest(create, {
      params: {},
      query: { internal_key: "q" },
      body: { activity_type: "NOTE", internal_key: "b" },
      headers: {},
      country: "US",
    });
    expect(fromBody.errors).toEqual([]);
    expect(fromBody.message.internalKey).toBeUndefined();
  });

  it("are reported at loc [header, name]", () => {
    const { errors } = decodeRequest(create, {
      params: {},
      query: {},
      body: { activity_type: "NOTE" },
      headers: { "x-internal-key": "x".repeat(501) },
      country: "US",
    });
    expect(errors.map((e) => e.loc)).toEqual([["header", "x-internal-key"]]);
    expect(locate(create, "internal_key")).toEqual(["header", "x-internal-key"]);
  });
});
