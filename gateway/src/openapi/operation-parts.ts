import { apiHeaders, sharedResponse } from "../errors/index.js";

// Parts of the OpenAPI operations the gateway writes by hand (its account and portal routes,
// beside the ones generated from the protos): references, bodies and the answers any route may give.

export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** An error answer in the API's {"detail": "..."} shape. */
export function errorResponse(description: string, example: string, extra: string[] = []): Json {
  return {
    description,
    headers: apiHeaders(...extra),
    content: { "application/json": { schema: ref("Error"), example: { detail: example } } },
  };
}

/** A JSON success answer of a status. */
export function jsonResponse(status: string, schema: string, description = "Successful Response"): Json {
  return { [status]: { description, headers: apiHeaders(), content: { "application/json": { schema: ref(schema) } } } };
}

/** A required JSON request body. */
export function jsonRequestBody(schema: string): Json {
  return { required: true, content: { "application/json": { schema: ref(schema) } } };
}

/**
 * What any route of the gateway may answer besides its own statuses: the HTTP server's 431 (a
 * head too large), 503 when the database is out of reach, and for a body 413 and 415.
 */
export function withGatewayResponses(paths: Record<string, Json>): Record<string, Json> {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as Record<string, Json>)) {
      const responses = (operation as { responses: Record<string, Json> }).responses;
      responses["431"] ??= sharedResponse("HeaderTooLarge");
      responses["503"] ??= sharedResponse("Unavailable");
      if ((operation as { requestBody?: Json }).requestBody) {
        responses["413"] ??= sharedResponse("BodyTooLarge");
        responses["415"] ??= sharedResponse("UnsupportedEncoding");
      }
      (operation as { responses: Record<string, Json> }).responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
      );
    }
  }
  return paths;
}
