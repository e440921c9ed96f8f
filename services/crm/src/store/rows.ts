import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumToJson } from "@voiceops/platform";
import {
  ContactSchema,
  ContactStatusSchema,
  LeadSchema,
  LeadStatusSchema,
  type Contact,
  type ContactStatus,
  type Lead,
  type LeadStatus,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";

// Rows as the database returns them, and their mapping to the API messages. Statuses are
// stored as their API spelling ("lead", "won"), which the enum descriptors translate.

export interface ContactRow {
  id: string;
  org_id: string;
  name: string | null;
  phone_number: string | null;
  email: string | null;
  status: string;
  company_name: string | null;
  address: string | null;
  notes: string | null;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

export interface LeadRow {
  id: string;
  org_id: string;
  contact_id: string;
  status: string;
  source: string | null;
  notes: string | null;
  estimated_value_cents: number | null;
  next_step: string | null;
  next_step_due_at: Date | null;
  lost_reason: string | null;
  won_at: Date | null;
  lost_at: Date | null;
  customer_id: string | null;
  created_at: Date;
  updated_at: Date;
  contact_name: string | null;
  contact_phone_number: string | null;
  contact_email: string | null;
}

export const CONTACT_COLUMNS =
  "id, org_id, name, phone_number, email, status, company_name, address, notes, tags, created_at, updated_at";

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
const ts = (value: Date | null) => (value ? timestampFromDate(value) : undefined);

export function contactStatusText(status: ContactStatus): string {
  return enumToJson(ContactStatusSchema, status) ?? "lead";
}

function contactStatusOf(text: string): ContactStatus {
  return (enumFromJson(ContactStatusSchema, text) ?? 0) as ContactStatus;
}

export function leadStatusText(status: LeadStatus): string {
  return enumToJson(LeadStatusSchema, status) ?? "new";
}

function leadStatusOf(text: string): LeadStatus {
  return (enumFromJson(LeadStatusSchema, text) ?? 0) as LeadStatus;
}

export function toContact(row: ContactRow): Contact {
  return create(ContactSchema, {
    id: row.id,
    name: opt(row.name),
    phoneNumber: opt(row.phone_number),
    email: opt(row.email),
    status: contactStatusOf(row.status),
    companyName: opt(row.company_name),
    address: opt(row.address),
    notes: opt(row.notes),
    tags: row.tags ?? [],
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}

export function toLead(row: LeadRow): Lead {
  return create(LeadSchema, {
    id: row.id,
    contactId: row.contact_id,
    contact: {
      id: row.contact_id,
      name: opt(row.contact_name),
      phoneNumber: opt(row.contact_phone_number),
      email: opt(row.contact_email),
    },
    status: leadStatusOf(row.status),
    source: opt(row.source),
    notes: opt(row.notes),
    estimatedValueCents: row.estimated_value_cents === null ? undefined : BigInt(row.estimated_value_cents),
    nextStep: opt(row.next_step),
    nextStepDueAt: ts(row.next_step_due_at),
    lostReason: opt(row.lost_reason),
    wonAt: ts(row.won_at),
    lostAt: ts(row.lost_at),
    customerId: opt(row.customer_id),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
