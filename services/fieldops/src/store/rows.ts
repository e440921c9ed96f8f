import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumToJson } from "@voiceops/platform";
import {
  ServiceProviderSchema,
  ServiceProviderStatus,
  ServiceProviderStatusSchema,
  type ServiceProvider,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";

// Rows as the database returns them, and their mapping to the API messages. Statuses are
// stored as their API spelling ("active"), which the enum descriptor translates.

export interface ServiceProviderRow {
  id: string;
  org_id: string;
  name: string;
  phone_number: string | null;
  email: string | null;
  specialty: string | null;
  skills: string[];
  status: string;
  is_on_call: boolean;
  notes: string | null;
  created_at: Date;
  updated_at: Date;
}

export const SERVICE_PROVIDER_COLUMNS = "id, org_id, name, phone_number, email, specialty, skills, status, is_on_call, notes, created_at, updated_at";

export function providerStatusText(status: ServiceProviderStatus): string {
  return enumToJson(ServiceProviderStatusSchema, status) ?? "active";
}

export function providerStatusOf(text: string): ServiceProviderStatus {
  return (enumFromJson(ServiceProviderStatusSchema, text) ?? ServiceProviderStatus.UNSPECIFIED) as ServiceProviderStatus;
}

export function toServiceProvider(row: ServiceProviderRow): ServiceProvider {
  return create(ServiceProviderSchema, {
    id: row.id,
    name: row.name,
    phoneNumber: row.phone_number ?? undefined,
    email: row.email ?? undefined,
    specialty: row.specialty ?? undefined,
    skills: row.skills ?? [],
    status: providerStatusOf(row.status),
    isOnCall: row.is_on_call,
    notes: row.notes ?? undefined,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
