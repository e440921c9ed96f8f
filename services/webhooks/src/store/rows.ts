import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumToJson } from "@voiceops/platform";
import {
  WebhookDeliveryDetailSchema,
  WebhookDeliverySchema,
  WebhookDeliveryStatusSchema,
  WebhookDisabledReasonSchema,
  WebhookEndpointSchema,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
} from "@voiceops/proto/voiceops/webhooks/v1/webhooks_service_pb";

// Rows as the database returns them and their API messages. Statuses and reasons are stored in
// their API spelling ("pending", "gone").

export interface EndpointRow {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  last_response_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  last_duration_ms: number | null;
  created_at: Date;
}

export interface AttemptRow {
  at: Date;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
}

export const ENDPOINT_COLUMNS =
  "id, org_id, url, description, event_types, enabled, disabled_reason, created_at, updated_at";
export const DELIVERY_COLUMNS =
  "id, event_id, event_type, status, attempts, last_attempt_at, next_attempt_at, last_response_status, last_response_body, last_error, last_duration_ms, created_at";

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
const ts = (value: Date | null) => (value ? timestampFromDate(new Date(value)) : undefined);

export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return create(WebhookEndpointSchema, {
    id: row.id,
    url: row.url,
    description: opt(row.description),
    eventTypes: row.event_types,
    enabled: row.enabled,
    disabledReason:
      row.disabled_reason === null ? undefined : enumFromJson(WebhookDisabledReasonSchema, row.disabled_reason),
    createdAt: ts(row.created_at),
    updatedAt: ts(row.updated_at),
  });
}

export function deliveryStatusText(status: WebhookDeliveryStatus): string | undefined {
  return enumToJson(WebhookDeliveryStatusSchema, status) ?? undefined;
}

function deliveryFields(row: DeliveryRow) {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: enumFromJson(WebhookDeliveryStatusSchema, row.status) ?? 0,
    attempts: row.attempts,
    lastAttemptAt: ts(row.last_attempt_at),
    nextAttemptAt: ts(row.next_attempt_at),
    lastResponseStatus: opt(row.last_response_status),
    lastResponseBody: opt(row.last_response_body),
    lastError: opt(row.last_error),
    lastDurationMs: opt(row.last_duration_ms),
    createdAt: ts(row.created_at),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return create(WebhookDeliverySchema, deliveryFields(row));
}

export function toDeliveryDetail(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryDetail {
  return create(WebhookDeliveryDetailSchema, {
    ...deliveryFields(row),
    attemptsLog: attempts.map((attempt) => ({
      at: ts(attempt.at),
      responseStatus: opt(attempt.response_status),
      durationMs: attempt.duration_ms,
      error: opt(attempt.error),
    })),
  });
}
