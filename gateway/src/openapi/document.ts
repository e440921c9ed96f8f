import type { DescField } from "@bufbuild/protobuf";
import { fieldRules, WEBHOOK_EVENT_TYPES } from "@voiceops/platform";
import { API_VERSION } from "../health.js";
import { serviceNameOf } from "../transcoder/mount.js";
import type { Route, UploadSpec } from "../transcoder/routes.js";
import { IDEMPOTENT_VERBS } from "../transcoder/idempotency.js";
import { apiHeaders, ERROR_SCHEMAS, errorResponses, HEADERS, PARAMETERS, SHARED_RESPONSES } from "../errors/index.js";
import { ACCOUNT_SCHEMAS, accountPaths } from "./account-paths.js";
import { exampleOf } from "./examples.js";
import { HEALTH_SCHEMAS, healthPaths } from "./health-paths.js";
import { PORTAL_SCHEMAS, portalPaths } from "./portal-paths.js";
import { commentOf, outputMessageTypes, SchemaBuilder, type Schema } from "./schemas.js";
import { webhookOperations } from "./webhooks.js";

/** A success body is never null, whatever the field that carries it. */
function nonNull(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) {
    const [only, ...others] = (schema.anyOf as Schema[]).filter((option) => option.type !== "null");
    if (only && others.length === 0)
      return { ...only, ...(schema.description ? { description: schema.description } : {}) };
  }
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== "null");
    const values = Array.isArray(schema.enum) ? { enum: (schema.enum as unknown[]).filter((v) => v !== null) } : {};
    return { ...schema, type: types.length === 1 ? types[0] : types, ...values };
  }
  return schema;
}

/** Builds the OpenAPI 3.1 document from the same route table the gateway serves. */
export function buildOpenApi(routes: Route[]) {
  const schemas = new SchemaBuilder(
    { ...ERROR_SCHEMAS, ...HEALTH_SCHEMAS, ...ACCOUNT_SCHEMAS, ...PORTAL_SCHEMAS },
    outputMessageTypes([
      ...routes.map((route) => route.method.output),
      ...WEBHOOK_EVENT_TYPES.flatMap((entry) => (entry.data === "id" ? [] : [entry.data])),
    ]),
  );
  const example = (schema: Schema) => exampleOf(schema, schemas.components);

  function parameter(field: DescField, where: "path" | "query" | "header", name = field.name): Schema {
    const rules = fieldRules(field);
    const description = rules?.description || commentOf(`${field.parent.typeName}.${field.name}`);
    return {
      name,
      in: where,
      required: where === "path" || Boolean(rules?.required),
      ...(description ? { description } : {}),
      schema: schemas.parameter(field),
    };
  }

  /** Request body alternatives of an upload route: the raw file, or a form with a file part. */
  function uploadContent(upload: UploadSpec): Record<string, Schema> {
    const content: Record<string, Schema> = {};
    const file = {
      type: "string",
      contentMediaType: "application/octet-stream",
      description: `The file, at most ${upload.maxBytes} bytes.`,
    };
    if (upload.raw) for (const type of upload.contentTypes) content[type] = { schema: file };
    if (upload.multipart) {
      const properties: Record<string, Schema> = { file };
      for (const field of upload.formFields) properties[field.name] = parameter(field, "query").schema as Schema;
      content["multipart/form-data"] = { schema: { type: "object", required: ["file"], properties } };
    }
    return content;
  }

  function requestBody(route: Route): Schema | undefined {
    const content: Record<string, Schema> = {};
    let json: Schema | undefined;
    if (route.body === "*") {
      const skipped = new Set<DescField>([...route.pathFields, ...route.headerFields.map((header) => header.field)]);
      if (route.upload) skipped.add(route.upload.field);
      json = schemas.message(route.method.input, "input", skipped);
    } else if (route.body?.message) {
      json = schemas.ref(route.body.message, "input");
    }
    if (json) content["application/json"] = { schema: json, example: example(json) };
    if (route.upload) Object.assign(content, uploadContent(route.upload));
    return Object.keys(content).length > 0 ? { required: true, content } : undefined;
  }

  function successResponse(route: Route, takesKey: boolean): Schema {
    const headers = takesKey ? apiHeaders("Idempotent-Replayed") : apiHeaders();
    if (route.successStatus === 204) return { description: "No Content", headers };
    const schema = route.responseBody
      ? nonNull(schemas.field(route.responseBody, "output"))
      : schemas.ref(route.method.output, "output");
    return {
      description: "Successful Response",
      headers,
      content: { "application/json": { schema, example: example(schema) } },
    };
  }

  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, string[]>();
  for (const route of routes) {
    const tag = serviceNameOf(route);
    const serviceComment = commentOf(route.service.typeName);
    const tagComments = tags.get(tag) ?? [];
    if (serviceComment && !tagComments.includes(serviceComment)) tagComments.push(serviceComment);
    tags.set(tag, tagComments);

    const body = requestBody(route);
    const takesKey = IDEMPOTENT_VERBS.has(route.verb);
    const description = route.description || commentOf(`${route.service.typeName}.${route.method.name}`);
    paths[route.template] ??= {};
    paths[route.template]![route.verb] = {
      operationId: route.method.name,
      summary: route.summary,
      ...(description ? { description } : {}),
      tags: [tag],
      parameters: [
        ...route.pathFields.map((field) => parameter(field, "path")),
        ...route.queryFields.map((field) => parameter(field, "query")),
        ...route.headerFields.map((header) => parameter(header.field, "header", header.header)),
        ...(takesKey ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
      ],
      ...(body ? { requestBody: body } : {}),
      responses: {
        [String(route.successStatus)]: successResponse(route, takesKey),
        ...errorResponses(route, body !== undefined, takesKey),
      },
      security: [{ ApiKeyAuth: [] }],
    };
  }
  Object.assign(paths, healthPaths(API_VERSION), accountPaths(), portalPaths());
  const webhooks = webhookOperations(schemas, example);

  return {
    openapi: "3.1.0",
    info: {
      title: "Voice-Assistant Business Operations API",
      version: API_VERSION,
      description:
        'Contacts, leads, service requests, technicians, conversations, calls, messages, activities and statistics of one organization, chosen by the API key (X-API-Key). Errors are {"detail": "..."}; validation errors (422) are HTTPValidationError, one entry per failing field. Every response carries X-Request-Id; every /api response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, and a 429 Retry-After. Every POST, PUT, PATCH and DELETE takes an optional Idempotency-Key: a retry with the same key and request answers the kept answer with Idempotent-Replayed: true and runs nothing. A request the HTTP server cannot read (a malformed request line, headers over 16 KB, a timeout while it is sent) is answered 400, 431 or 408 with {"detail": "..."} before it reaches any route.',
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      ...[...tags].map(([name, comments]) => ({ name, description: comments.join(" ") || name })),
      { name: "health", description: "Liveness, readiness and dependency checks; no API key needed." },
      {
        name: "account",
        description: "Dashboard sign-in, who am I, the organization's API keys, users and business hours.",
      },
      {
        name: "portal",
        description:
          "The customer portal of one contact (/portal/<token>): no API key, the contact's portal token is the credential.",
      },
    ],
    paths,
    webhooks,
    components: {
      schemas: schemas.components,
      responses: SHARED_RESPONSES,
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: {
        ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key", description: "The organization's API key." },
        SessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "vo_session",
          description:
            "The dashboard's session (POST /api/auth/sign-in), accepted on every /api route as a key of the user's role; its POST, PUT, PATCH and DELETE also need the session's X-CSRF-Token.",
        },
      },
    },
    security: [{ ApiKeyAuth: [] }],
  };
}
