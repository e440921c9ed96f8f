import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson } from "@voiceops/platform";
import {
  CallRequestSchema,
  CallRequestStatusSchema,
  CampaignContactSchema,
  CampaignContactStatusSchema,
  CampaignSchema,
  CampaignStatusSchema,
  DncEntrySchema,
  DncSourceSchema,
  WeekdaySchema,
  type CallRequest,
  type CallRequestStatus,
  type Campaign,
  type CampaignContact,
  type CampaignContactStatus,
  type CampaignStatus,
  type DncEntry,
  type DncSource,
  type Weekday,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import type { CallingWindow, WeekdayName } from "../outbound/calling-window.js";

// Rows of the outbound tables as the database returns them, and their API messages. Statuses
// and sources are stored as their API spelling, which the enum descriptors translate.

export type CampaignStatusName = "draft" | "running" | "paused" | "completed" | "cancelled";
export type ContactStatusName = "pending" | "queued" | "dialing" | "completed" | "failed" | "skipped_dnc" | "cancelled";
export type RequestStatusName = "queued" | "dialing" | "completed" | "failed" | "cancelled" | "blocked";
export type DncSourceName = "manual" | "import" | "caller_request" | "disposition";

export interface DncRow {
  id: string;
  org_id: string;
  phone_number: string;
  reason: string | null;
  source: DncSourceName;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface CampaignRow {
  id: string;
  org_id: string;
  name: string;
  agent_prompt: string | null;
  status: CampaignStatusName;
  window_start: string;
  window_end: string;
  window_days: WeekdayName[];
  timezone: string;
  max_attempts: number;
  retry_delay_minutes: number;
  max_concurrent_calls: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export type ContactCounts = Record<ContactStatusName, number>;

export interface CampaignContactRow {
  id: string;
  org_id: string;
  campaign_id: string;
  phone_number: string;
  name: string | null;
  email: string | null;
  contact_id: string | null;
  timezone: string | null;
  variables: JsonObject;
  status: ContactStatusName;
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  disposition: string | null;
  last_session_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CallRequestRow {
  id: string;
  org_id: string;
  phone_number: string;
  contact_id: string | null;
  campaign_id: string | null;
  campaign_contact_id: string | null;
  agent_prompt: string | null;
  variables: JsonObject;
  status: RequestStatusName;
  scheduled_for: Date;
  attempts: number;
  max_attempts: number;
  session_id: string | null;
  disposition: string | null;
  timezone: string;
  window_start: string;
  window_end: string;
  window_days: WeekdayName[];
  announced_at: Date | null;
  window_closes_at: Date | null;
  dialed_at: Date | null;
  lease_expires_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const DNC_COLUMNS = "id, org_id, phone_number, reason, source, expires_at, created_at, updated_at";
export const CAMPAIGN_COLUMNS =
  "id, org_id, name, agent_prompt, status, window_start, window_end, window_days, timezone, max_attempts, retry_delay_minutes, max_concurrent_calls, created_at, updated_at, started_at, completed_at";
export const CONTACT_COLUMNS =
  "id, org_id, campaign_id, phone_number, name, email, contact_id, timezone, variables, status, attempts, last_attempt_at, next_attempt_at, disposition, last_session_id, created_at, updated_at";
export const REQUEST_COLUMNS =
  "id, org_id, phone_number, contact_id, campaign_id, campaign_contact_id, agent_prompt, variables, status, scheduled_for, attempts, max_attempts, session_id, disposition, timezone, window_start, window_end, window_days, announced_at, window_closes_at, dialed_at, lease_expires_at, completed_at, created_at, updated_at";

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
const ts = (value: Date | null) => (value ? timestampFromDate(value) : undefined);

export function windowOfCampaign(row: CampaignRow): CallingWindow {
  return { start: row.window_start, end: row.window_end, days: row.window_days };
}

export function windowOfRequest(row: CallRequestRow): CallingWindow {
  return { start: row.window_start, end: row.window_end, days: row.window_days };
}

export function toDncEntry(row: DncRow): DncEntry {
  return create(DncEntrySchema, {
    id: row.id,
    phoneNumber: row.phone_number,
    reason: opt(row.reason),
    source: (enumFromJson(DncSourceSchema, row.source) ?? 0) as DncSource,
    expiresAt: ts(row.expires_at),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}

export function emptyCounts(): ContactCounts {
  return { pending: 0, queued: 0, dialing: 0, completed: 0, failed: 0, skipped_dnc: 0, cancelled: 0 };
}

export function toCampaign(row: CampaignRow, counts: ContactCounts = emptyCounts()): Campaign {
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  return create(CampaignSchema, {
    id: row.id,
    name: row.name,
    agentPrompt: opt(row.agent_prompt),
    status: (enumFromJson(CampaignStatusSchema, row.status) ?? 0) as CampaignStatus,
    callingWindow: {
      start: row.window_start,
      end: row.window_end,
      days: row.window_days.map((day) => (enumFromJson(WeekdaySchema, day) ?? 0) as Weekday),
    },
    maxAttempts: row.max_attempts,
    retryDelayMinutes: row.retry_delay_minutes,
    maxConcurrentCalls: row.max_concurrent_calls,
    counts: {
      pending: counts.pending,
      queued: counts.queued,
      dialing: counts.dialing,
      completed: counts.completed,
      failed: counts.failed,
      skippedDnc: counts.skipped_dnc,
      cancelled: counts.cancelled,
      total,
    },
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    startedAt: ts(row.started_at),
    completedAt: ts(row.completed_at),
    timezone: row.timezone,
  });
}

export function toCampaignContact(row: CampaignContactRow): CampaignContact {
  return create(CampaignContactSchema, {
    id: row.id,
    campaignId: row.campaign_id,
    phoneNumber: row.phone_number,
    name: opt(row.name),
    email: opt(row.email),
    contactId: opt(row.contact_id),
    timezone: opt(row.timezone),
    variables: row.variables ?? {},
    status: (enumFromJson(CampaignContactStatusSchema, row.status) ?? 0) as CampaignContactStatus,
    attempts: row.attempts,
    lastAttemptAt: ts(row.last_attempt_at),
    nextAttemptAt: ts(row.next_attempt_at),
    disposition: opt(row.disposition),
    lastSessionId: opt(row.last_session_id),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}

export function toCallRequest(row: CallRequestRow): CallRequest {
  return create(CallRequestSchema, {
    id: row.id,
    phoneNumber: row.phone_number,
    contactId: opt(row.contact_id),
    campaignId: opt(row.campaign_id),
    campaignContactId: opt(row.campaign_contact_id),
    agentPrompt: opt(row.agent_prompt),
    variables: row.variables ?? {},
    status: (enumFromJson(CallRequestStatusSchema, row.status) ?? 0) as CallRequestStatus,
    scheduledFor: timestampFromDate(row.scheduled_for),
    attempts: row.attempts,
    sessionId: opt(row.session_id),
    disposition: opt(row.disposition),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    dialedAt: ts(row.dialed_at),
    leaseExpiresAt: ts(row.lease_expires_at),
    completedAt: ts(row.completed_at),
    timezone: row.timezone,
  });
}
