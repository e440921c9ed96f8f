import { WEBHOOK_EVENT_TYPES } from "@voiceops/platform";
import type { Schema, SchemaBuilder } from "./schemas.js";

// The document's top-level `webhooks`: one operation per event type, the body's `data` the same
// schema as the REST responses of its resource.

const SIGNATURE_HEADERS: Schema[] = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "The event's id: the same on every retry of it.",
    schema: { type: "string", format: "uuid" },
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Unix seconds of this attempt.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      'v1,<base64 of HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")>, space-separated when two secrets are valid (Standard Webhooks).',
    schema: { type: "string" },
  },
];

const DELETED: Schema = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string" } },
  additionalProperties: false,
};

function operationIdOf(type: string): string {
  return `${type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`;
}

export function webhookOperations(
  schemas: SchemaBuilder,
  example: (schema: Schema) => unknown,
): Record<string, unknown> {
  const operations: Record<string, unknown> = {};
  for (const entry of WEBHOOK_EVENT_TYPES) {
    const data = entry.data === "id" ? DELETED : schemas.ref(entry.data, "output");
    const body: Schema = {
      type: "object",
      required: ["type", "timestamp", "data"],
      properties: {
        type: { type: "string", const: entry.type },
        timestamp: { type: "string", format: "date-time" },
        data,
      },
    };
    operations[entry.type] = {
      post: {
        operationId: operationIdOf(entry.type),
        summary: entry.type,
        description: `${entry.description} Posted to every enabled endpoint subscribed to it (or to "*"); a 2xx answer within 15 s is success, anything else is retried.`,
        tags: ["webhooks"],
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: body,
              example: { type: entry.type, timestamp: "2026-11-21T14:03:00.000Z", data: example(data) },
            },
          },
        },
        responses: {
          "200": { description: "Any 2xx answer: delivered." },
          "410": { description: "Gone: the endpoint is disabled." },
        },
        security: [],
      },
    };
  }
  return operations;
}
