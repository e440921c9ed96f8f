import { methodRules } from "@voiceops/platform";
import type { Route } from "../transcoder/routes.js";

type Json = Record<string, unknown>;

/** The error bodies (CONTRACT.md "Errors"), as components. */
export const ERROR_SCHEMAS: Record<string, Json> = {
  HTTPValidationError: {
    type: "object",
    description: "A request that failed validation: one entry per failing field, all of them.",
    required: ["detail"],
    properties: {
      detail: {
        type: "array",
        items: {
          type: "object",
          required: ["loc", "msg", "type"],
          properties: {
            loc: {
              type: "array",
              description: "Where the field is: path, query, body or header, then its path in the body.",
              items: { anyOf: [{ type: "string" }, { type: "integer" }] },
            },
            msg: { type: "string", description: "Human message." },
            type: {
              type: "string",
              description: "Machine type of the failure, e.g. missing, uuid_parsing, less_than_equal.",
            },
            input: { description: "The offending input, when known." },
            ctx: { type: "object", description: 'Extra context, e.g. {"le": 100}.' },
          },
        },
      },
    },
  },
  Error: {
    type: "object",
    description: "Every other error.",
    required: ["detail"],
    properties: { detail: { type: "string", description: "Human message." } },
    additionalProperties: false,
  },
};

/** Headers every response of the API carries, and Retry-After of a 429. */
export const HEADERS: Record<string, Json> = {
  "X-Request-Id": { description: "The request's id (the caller's own, when it sent one).", schema: { type: "string" } },
  "RateLimit-Limit": { description: "Requests allowed per window.", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the window resets.", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  "Idempotent-Replayed": {
    description:
      "`true` when the answer is the one kept for this request's Idempotency-Key, replayed: the request did not run again.",
    schema: { type: "string", enum: ["true"] },
  },
};

/** The Idempotency-Key request header of every POST, PUT, PATCH and DELETE (CONTRACT.md "Idempotent requests"). */
export const PARAMETERS: Record<string, Json> = {
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      'Makes a retry safe: 1 to 255 visible ASCII characters, bare or in double quotes (`"abc"` is `abc`). The first request with a key runs; its answer is kept for IDEMPOTENCY_TTL_HOURS (default 24) unless it is 401, 403, 422, 429 or 5xx (the key is then free again). The same key with the same method, path (with query) and body again answers the kept status and body with `Idempotent-Replayed: true` and runs nothing; with another method, path or body: 422 on `["header", "idempotency-key"]`; while the first request still runs: 409 with Retry-After: 1. Keys belong to the organization.',
    schema: { type: "string", minLength: 1, maxLength: 257 },
  },
};

const IN_FLIGHT = "A request with this Idempotency-Key is still being processed";

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers of an /api response. */
export function apiHeaders(...extra: string[]): Json {
  const names = ["X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", ...extra];
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

function detail(description: string, example: string, headers = apiHeaders()): Json {
  return {
    description,
    headers,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" }, example: { detail: example } } },
  };
}

/** The JSON body limit of routes that take one (the gateway's body parser). */
export const JSON_BODY_LIMIT = "1 MB";

const VALIDATION_EXAMPLE = {
  detail: [
    {
      loc: ["query", "page_size"],
      msg: "Input should be less than or equal to 100",
      type: "less_than_equal",
      input: 500,
      ctx: { le: 100 },
    },
  ],
};

/** The error answers many routes share, as components. */
export const SHARED_RESPONSES: Record<string, Json> = {
  Unauthorized: detail("Missing, invalid, revoked or expired API key.", "Invalid, revoked or expired API key"),
  NotFound: detail("Not found, or owned by another organization.", "Not found"),
  BodyTooLarge: detail(`JSON body larger than ${JSON_BODY_LIMIT}.`, "Request body too large"),
  UnsupportedEncoding: detail("Body in an unsupported charset or Content-Encoding.", "Unsupported request encoding"),
  ValidationError: {
    description:
      "Validation error: a body that is not JSON, a wrong type, an out-of-range value, a malformed id; one entry per failing field.",
    headers: apiHeaders(),
    content: {
      "application/json": { schema: { $ref: "#/components/schemas/HTTPValidationError" }, example: VALIDATION_EXAMPLE },
    },
  },
  TooManyRequests: detail(
    "Rate limited: retry after Retry-After seconds.",
    "Too many requests; retry after the time in Retry-After",
    apiHeaders("Retry-After"),
  ),
  // Answered by the HTTP server itself, before any route: no request id, no rate-limit headers.
  HeaderTooLarge: {
    description: "Request line (a long query string) or headers larger than the server accepts (16 KB).",
    content: {
      "application/json": {
        schema: { $ref: "#/components/schemas/Error" },
        example: { detail: "Request header fields too large" },
      },
    },
  },
  Unavailable: detail("A dependency is unavailable; retry with backoff.", "Service temporarily unavailable"),
  Timeout: detail("The service did not answer in time; retry with backoff.", "Upstream timeout"),
};

/** A reference to one of the document's shared error answers. */
export const sharedResponse = (name: keyof typeof SHARED_RESPONSES & string) => ({
  $ref: `#/components/responses/${name}`,
});
const shared = sharedResponse;

/**
 * Every error status a route can answer: the ones the gateway answers for every route, those
 * its shape implies (roles, path parameters, a body, an upload) and those its handler declares
 * in MethodRules.errors.
 */
export function errorResponses(route: Route, takesBody: boolean, takesKey = false): Record<string, Json> {
  const responses: Record<string, Json> = {};
  responses["401"] = shared("Unauthorized");
  if (route.roles.length > 0)
    responses["403"] = detail(
      `Requires the ${route.roles.join(" or ")} role.`,
      `This operation requires the ${route.roles.join(" or ")} role`,
    );
  const declared = new Map<number, string>();
  for (const error of methodRules(route.method)?.errors ?? []) declared.set(error.status, error.description);
  if (route.pathFields.length > 0 && !declared.has(404)) responses["404"] = shared("NotFound");
  for (const [status, description] of declared)
    responses[String(status)] = detail(description || "Error.", description ? description.replace(/\.$/, "") : "Error");
  if (takesKey) {
    // Also when the route has a 409 of its own: a key whose first request still runs.
    const own = declared.get(409);
    const example = own ? own.replace(/\.$/, "") : IN_FLIGHT;
    const description = `${own ? `${own.replace(/\.$/, "")}. Or: ` : ""}${IN_FLIGHT} (Idempotency-Key; retry after Retry-After seconds), or its first request ran but its answer was lost (it will not run again).`;
    responses["409"] = detail(description, example, apiHeaders("Retry-After", "Idempotent-Replayed"));
  }
  if (route.upload) {
    responses["413"] = detail(
      `File larger than ${route.upload.maxBytes} bytes, or a JSON body larger than ${JSON_BODY_LIMIT}.`,
      "Request body too large",
    );
    responses["415"] = detail(
      `A file of another type than ${route.upload.contentTypes.join(", ")}, or a body in an unsupported encoding.`,
      "Unsupported media type",
    );
  } else if (takesBody) {
    responses["413"] = shared("BodyTooLarge");
    responses["415"] = shared("UnsupportedEncoding");
  }
  responses["422"] = takesKey
    ? {
        ...SHARED_RESPONSES.ValidationError,
        description: `${SHARED_RESPONSES.ValidationError?.description} Also a malformed Idempotency-Key, or a key already used for a different request (loc ["header", "idempotency-key"]).`,
      }
    : shared("ValidationError");
  responses["429"] = shared("TooManyRequests");
  responses["431"] = shared("HeaderTooLarge");
  responses["503"] = shared("Unavailable");
  responses["504"] = shared("Timeout");
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}
