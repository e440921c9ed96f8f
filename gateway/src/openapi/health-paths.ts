import { apiHeaders } from "../errors/index.js";

// The health routes (gateway/src/health.ts) in the OpenAPI document: no API key, never limited
// (they carry the client's RateLimit-* headers all the same).

type Json = Record<string, unknown>;

const STATE = { type: "string", enum: ["ok", "degraded", "down"] };

export const HEALTH_SCHEMAS: Record<string, Json> = {
  HealthCheck: {
    type: "object",
    description: "Health of the API and of every dependency: its database, its event bus and each service.",
    required: ["status", "version", "dependencies"],
    properties: {
      status: {
        type: "string",
        enum: ["ok", "degraded"],
        description: "ok when every dependency is ok (200), else degraded (503).",
      },
      version: { type: "string", description: "Version of the API." },
      dependencies: {
        type: "object",
        description: "State of each dependency, by name (database, bus, crm, jobs, ...).",
        additionalProperties: STATE,
      },
    },
    additionalProperties: false,
  },
  Liveness: {
    type: "object",
    required: ["status"],
    properties: { status: { type: "string", const: "ok" } },
    additionalProperties: false,
  },
  Readiness: {
    type: "object",
    description: "Whether this gateway replica takes traffic: its own database and bus, and not draining.",
    required: ["status"],
    properties: {
      status: { type: "string", enum: ["ok", "unavailable", "draining"] },
      dependencies: {
        type: "object",
        required: ["database", "bus"],
        properties: {
          database: { type: "string", enum: ["ok", "down"] },
          bus: { type: "string", enum: ["ok", "down"] },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
};

function body(schema: string, description: string, example: unknown): Json {
  return {
    description,
    headers: apiHeaders(),
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, example } },
  };
}

function operation(operationId: string, summary: string, description: string, responses: Json): Json {
  return { get: { operationId, summary, description, tags: ["health"], security: [], responses } };
}

/** The health paths, each with its bodies. */
export function healthPaths(version: string): Record<string, Json> {
  const healthy = { status: "ok", version, dependencies: { database: "ok", bus: "ok", crm: "ok" } };
  const check = (operationId: string) =>
    operation(
      operationId,
      "Health of the API and its dependencies",
      "200 when the database, the bus and every service are ok, else 503.",
      {
        "200": body("HealthCheck", "Every dependency is ok.", healthy),
        "503": body("HealthCheck", "A dependency is degraded or down.", {
          ...healthy,
          status: "degraded",
          dependencies: { ...healthy.dependencies, crm: "down" },
        }),
      },
    );
  const live = (operationId: string) =>
    operation(operationId, "Liveness", "Always 200 while the process runs (for container health checks).", {
      "200": body("Liveness", "The process runs.", { status: "ok" }),
    });
  return {
    "/health": check("getHealth"),
    "/api/health": check("getApiHealth"),
    "/health/live": live("getLiveness"),
    "/api/health/live": live("getApiLiveness"),
    "/health/ready": operation(
      "getReadiness",
      "Readiness of this replica",
      "The readiness probe: 200 when this replica's database and bus are ok; 503 while draining or when either is down.",
      {
        "200": body("Readiness", "Ready.", { status: "ok", dependencies: { database: "ok", bus: "ok" } }),
        "503": body("Readiness", "Draining, or its database or bus is down.", { status: "draining" }),
      },
    ),
  };
}
