import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { enumJsonValues, fieldRules } from "@voiceops/platform";
import { API_VERSION } from "./health.js";
import { serviceNameOf } from "./transcoder/mount.js";
import type { Route, UploadSpec } from "./transcoder/routes.js";

type Schema = Record<string, unknown>;

const SCALAR_SCHEMAS: Partial<Record<ScalarType, Schema>> = {
  [ScalarType.STRING]: { type: "string" },
  [ScalarType.BOOL]: { type: "boolean" },
  [ScalarType.INT32]: { type: "integer", format: "int32" },
  [ScalarType.SINT32]: { type: "integer", format: "int32" },
  [ScalarType.UINT32]: { type: "integer", format: "int32", minimum: 0 },
  [ScalarType.INT64]: { type: "integer", format: "int64" },
  [ScalarType.SINT64]: { type: "integer", format: "int64" },
  [ScalarType.UINT64]: { type: "integer", format: "int64", minimum: 0 },
  [ScalarType.DOUBLE]: { type: "number", format: "double" },
  [ScalarType.FLOAT]: { type: "number", format: "float" },
  [ScalarType.BYTES]: { type: "string", contentEncoding: "base64" },
};

const VALIDATION_ERROR = {
  type: "object",
  required: ["detail"],
  properties: {
    detail: {
      type: "array",
      items: {
        type: "object",
        required: ["loc", "msg", "type"],
        properties: {
          loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
          msg: { type: "string" },
          type: { type: "string" },
          input: {},
          ctx: { type: "object" },
        },
      },
    },
  },
};

const ERROR = { type: "object", required: ["detail"], properties: { detail: { type: "string" } } };

/** Request body alternatives of an upload route: the raw file, or a form with a file part. */
function uploadContent(upload: UploadSpec): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  const file = { type: "string", contentMediaType: "application/octet-stream", description: `At most ${upload.maxBytes} bytes.` };
  if (upload.raw) for (const type of upload.contentTypes) content[type] = { schema: file };
  if (upload.multipart) {
    const properties: Record<string, unknown> = { file };
    for (const field of upload.formFields) properties[field.name] = { type: "string" };
    content["multipart/form-data"] = { schema: { type: "object", required: ["file"], properties } };
  }
  return content;
}

/** Builds the OpenAPI 3.1 document from the same route table the gateway serves. */
export function buildOpenApi(routes: Route[]) {
  const schemas: Record<string, Schema> = { HTTPValidationError: VALIDATION_ERROR, Error: ERROR };
  const names = new Map<string, string>();

  function refOf(desc: DescMessage): Schema {
    let name = names.get(desc.typeName);
    if (!name) {
      name = desc.name in schemas ? desc.typeName.replace(/\./g, "_") : desc.name;
      names.set(desc.typeName, name);
      schemas[name] = {}; // placeholder first: messages may refer to themselves
      schemas[name] = messageSchema(desc, new Set(), true);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  function valueSchema(field: DescField): Schema {
    const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
    if (kind === "enum" && field.enum) return { type: "string", enum: enumJsonValues(field.enum) };
    if (kind === "message" && field.message) {
      const typeName = field.message.typeName;
      if (typeName === "google.protobuf.Timestamp") return { type: "string", format: "date-time" };
      if (typeName === "google.protobuf.Struct") return { type: "object", additionalProperties: true };
      if (typeName === "google.protobuf.Value") return {};
      return refOf(field.message);
    }
    return { ...(SCALAR_SCHEMAS[field.scalar ?? ScalarType.STRING] ?? { type: "string" }) };
  }

  function fieldSchema(field: DescField, asOutput: boolean): Schema {
    const rules = fieldRules(field);
    let schema: Schema;
    if (field.fieldKind === "list") {
      const items = valueSchema(field);
      if (rules?.uuid) Object.assign(items, { format: "uuid" });
      schema = { type: "array", items };
      if (rules?.minItems !== undefined) schema.minItems = rules.minItems;
      if (rules?.maxItems !== undefined) schema.maxItems = rules.maxItems;
    } else if (field.fieldKind === "map") {
      schema = { type: "object", additionalProperties: valueSchema(field) };
    } else {
      schema = valueSchema(field);
      if (rules?.min !== undefined) schema.minimum = Number(rules.min);
      if (rules?.max !== undefined) schema.maximum = Number(rules.max);
      if (rules?.minLen !== undefined) schema.minLength = rules.minLen;
      if (rules?.maxLen !== undefined) schema.maxLength = rules.maxLen;
      if (rules?.uuid) schema.format = "uuid";
      if (rules?.email) schema.format = "email";
      if (rules?.in.length) schema.enum = rules.in;
      if (rules?.defaultJson !== undefined) schema.default = JSON.parse(rules.defaultJson) as unknown;
      const nullable = field.proto.proto3Optional || field.fieldKind === "message";
      if (nullable && !(rules?.notNull && !asOutput) && !rules?.required) {
        schema = "$ref" in schema ? { anyOf: [schema, { type: "null" }] } : { ...schema, type: [schema.type ?? "string", "null"] };
      }
    }
    if (rules?.description) schema.description = rules.description;
    return schema;
  }

  function messageSchema(desc: DescMessage, skip: Set<DescField>, asOutput: boolean): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const field of desc.fields) {
      if (skip.has(field) || field.name === "update_mask") continue;
      properties[field.name] = fieldSchema(field, asOutput);
      if (fieldRules(field)?.required) required.push(field.name);
    }
    return { type: "object", properties, ...(required.length ? { required } : {}) };
  }

  function parameter(field: DescField, where: "path" | "query" | "header", name = field.name): Schema {
    const rules = fieldRules(field);
    const schema = fieldSchema(field, false);
    return {
      name,
      in: where,
      required: where === "path" || Boolean(rules?.required),
      schema,
      ...(rules?.description ? { description: rules.description } : {}),
    };
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const responses: Record<string, unknown> = {};
    if (route.successStatus === 204) {
      responses["204"] = { description: "No Content" };
    } else {
      const schema = route.responseBody ? fieldSchema(route.responseBody, true) : refOf(route.method.output);
      responses[String(route.successStatus)] = { description: "Successful Response", content: { "application/json": { schema } } };
    }
    const error = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
    responses["401"] = error("Missing, invalid, revoked or expired API key");
    if (route.roles.length > 0) responses["403"] = error(`Requires the ${route.roles.join(" or ")} role`);
    if (route.pathFields.length > 0) responses["404"] = error("Not found, or owned by another organization");
    responses["422"] = { description: "Validation Error", content: { "application/json": { schema: { $ref: "#/components/schemas/HTTPValidationError" } } } };
    responses["429"] = error("Rate limited; retry after Retry-After seconds");

    const content: Record<string, unknown> = {};
    const skipped = new Set(route.pathFields);
    if (route.upload) skipped.add(route.upload.field);
    for (const { field } of route.headerFields) skipped.add(field);
    if (route.body === "*") {
      for (const header of route.headerFields) skipped.add(header.field);
      content["application/json"] = { schema: messageSchema(route.method.input, skipped, false) };
    } else if (route.body?.message) {
      content["application/json"] = { schema: refOf(route.body.message) };
    }
    if (route.upload) Object.assign(content, uploadContent(route.upload));
    const requestBody = Object.keys(content).length > 0 ? { required: true, content } : undefined;
    if (route.upload) {
      responses["413"] = error(`File larger than ${route.upload.maxBytes} bytes`);
      responses["415"] = error("Unsupported media type");
    }
    const openApiPath = route.template;
    paths[openApiPath] ??= {};
    (paths[openApiPath] as Record<string, unknown>)[route.verb] = {
      operationId: route.method.name,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [serviceNameOf(route)],
      parameters: [
        ...route.pathFields.map((f) => parameter(f, "path")),
        ...route.queryFields.map((f) => parameter(f, "query")),
        ...route.headerFields.map((h) => parameter(h.field, "header", h.header)),
      ],
      ...(requestBody ? { requestBody } : {}),
      responses,
      security: [{ ApiKeyAuth: [] }],
    };
  }

  const health = (description: string) => ({
    get: { summary: description, tags: ["health"], security: [], responses: { "200": { description: "OK" }, "503": { description: "A dependency is down" } } },
  });
  paths["/health"] = health("Health of the API and its dependencies");
  paths["/api/health"] = health("Health of the API and its dependencies");
  paths["/health/live"] = health("Liveness (always 200 while the process runs)");
  paths["/api/health/live"] = health("Liveness (always 200 while the process runs)");

  return {
    openapi: "3.1.0",
    info: {
      title: "Voice-Assistant Business Operations API",
      version: API_VERSION,
      description:
        "Contacts, leads, service requests, technicians, conversations, calls, messages, activities and statistics of one organization, chosen by the API key. Errors: {\"detail\": \"...\"}; validation errors: HTTPValidationError (422). Every response carries X-Request-Id and RateLimit-* headers.",
    },
    paths,
    components: {
      schemas,
      securitySchemes: { ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" } },
    },
    security: [{ ApiKeyAuth: [] }],
  };
}
