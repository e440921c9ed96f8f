import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson } from "@voiceops/platform";
import {
  EmergencyTypeSchema,
  QuoteOfRequestSchema,
  QuoteStatusSchema,
  ServiceRequestPrioritySchema,
  ServiceRequestSchema,
  ServiceRequestStatusSchema,
  type EmergencyType,
  type QuoteOfRequest,
  type QuoteStatus,
  type ServiceRequest,
  type ServiceRequestPriority,
  type ServiceRequestStatus,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

// Service request rows and their mapping to the API messages. Enum columns hold the API
// spelling ("MEDIUM", "in_progress", "pending"), which the enum descriptors translate.

export interface RequestRow {
  id: string;
  org_id: string;
  contact_id: string | null;
  provider_id: string | null;
  address: string | null;
  category: string | null;
  description: string;
  priority: string;
  status: string;
  due_at: Date | null;
  is_emergency: boolean;
  emergency_type: string | null;
  emergency_priority: number | null;
  emergency_notes: string | null;
  emergency_at: Date | null;
  quote_amount_cents: number | null;
  quote_diagnostic_fee_cents: number | null;
  quote_notes: string | null;
  quote_status: string | null;
  quote_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const REQUEST_COLUMNS = `id, org_id, contact_id, provider_id, address, category, description, priority, status, due_at,
  is_emergency, emergency_type, emergency_priority, emergency_notes, emergency_at, quote_amount_cents,
  quote_diagnostic_fee_cents, quote_notes, quote_status, quote_updated_at, created_at, updated_at`;

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
const ts = (value: Date | null) => (value ? timestampFromDate(value) : undefined);
const cents = (value: number | null) => (value === null ? undefined : BigInt(value));

export function toQuoteOfRequest(row: RequestRow): QuoteOfRequest {
  return create(QuoteOfRequestSchema, {
    serviceRequestId: row.id,
    quoteAmountCents: BigInt(row.quote_amount_cents ?? 0),
    diagnosticFeeCents: cents(row.quote_diagnostic_fee_cents),
    notes: opt(row.quote_notes),
    status: (enumFromJson(QuoteStatusSchema, row.quote_status ?? "") ?? 0) as QuoteStatus,
    updatedAt: ts(row.quote_updated_at),
  });
}

export function toServiceRequest(row: RequestRow): ServiceRequest {
  return create(ServiceRequestSchema, {
    id: row.id,
    contactId: opt(row.contact_id),
    providerId: opt(row.provider_id),
    address: opt(row.address),
    category: opt(row.category),
    description: row.description,
    priority: (enumFromJson(ServiceRequestPrioritySchema, row.priority) ?? 0) as ServiceRequestPriority,
    status: (enumFromJson(ServiceRequestStatusSchema, row.status) ?? 0) as ServiceRequestStatus,
    dueAt: ts(row.due_at),
    isEmergency: row.is_emergency,
    emergencyType:
      row.emergency_type === null
        ? undefined
        : ((enumFromJson(EmergencyTypeSchema, row.emergency_type) ?? 0) as EmergencyType),
    emergencyPriority: opt(row.emergency_priority),
    emergencyNotes: opt(row.emergency_notes),
    emergencyAt: ts(row.emergency_at),
    quote:
      row.quote_status === null
        ? undefined
        : {
            quoteAmountCents: BigInt(row.quote_amount_cents ?? 0),
            diagnosticFeeCents: cents(row.quote_diagnostic_fee_cents),
            notes: opt(row.quote_notes),
            status: (enumFromJson(QuoteStatusSchema, row.quote_status) ?? 0) as QuoteStatus,
            updatedAt: ts(row.quote_updated_at),
          },
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
