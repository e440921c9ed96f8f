import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson } from "@voiceops/platform";
import {
  ActivitySchema,
  ActivitySourceSchema,
  ActivityTypeSchema,
  type Activity,
  type ActivitySource,
  type ActivityType,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";

// Activity rows and their mapping to the API message. activity_type and source hold the API
// spelling ("CALL_ENDED", "internal").

export interface ActivityRow {
  id: string;
  org_id: string;
  activity_type: string;
  description: string | null;
  contact_id: string | null;
  service_request_id: string | null;
  session_id: string | null;
  metadata: JsonObject;
  source: string;
  occurred_at: Date;
  created_at: Date;
  customer_phone: string | null;
}

export const ACTIVITY_COLUMNS = `id, org_id, activity_type, description, contact_id, service_request_id, session_id, metadata, source,
  occurred_at, created_at, customer_phone`;

/** The same columns, qualified by a table alias ("a."). */
export const activityColumns = (alias: string): string =>
  ACTIVITY_COLUMNS.split(",")
    .map((column) => `${alias}${column.trim()}`)
    .join(", ");

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function toActivity(row: ActivityRow): Activity {
  return create(ActivitySchema, {
    id: row.id,
    activityType: (enumFromJson(ActivityTypeSchema, row.activity_type) ?? 0) as ActivityType,
    description: opt(row.description),
    contactId: opt(row.contact_id),
    serviceRequestId: opt(row.service_request_id),
    sessionId: opt(row.session_id),
    metadata: row.metadata ?? {},
    source: (enumFromJson(ActivitySourceSchema, row.source) ?? 0) as ActivitySource,
    occurredAt: timestampFromDate(row.occurred_at),
    createdAt: timestampFromDate(row.created_at),
  });
}
