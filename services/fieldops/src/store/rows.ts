import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumToJson, type Queryable } from "@voiceops/platform";
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

export const SERVICE_PROVIDER_COLUMNS =
  "id, org_id, name, phone_number, email, specialty, skills, status, is_on_call, notes, created_at, updated_at";

export function providerStatusText(status: ServiceProviderStatus): string {
  return enumToJson(ServiceProviderStatusSchema, status) ?? "active";
}

function providerStatusOf(text: string): ServiceProviderStatus {
  return (enumFromJson(ServiceProviderStatusSchema, text) ??
    ServiceProviderStatus.UNSPECIFIED) as ServiceProviderStatus;
}

/** The fields of a provider row as message values: a service provider's, and a technician's too. */
export function providerFields(row: ServiceProviderRow) {
  return {
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
  };
}

export function toServiceProvider(row: ServiceProviderRow): ServiceProvider {
  return create(ServiceProviderSchema, providerFields(row));
}

/** A row naming a technician, with the technician's name and phone joined (null once deleted). */
export interface WithTechnician {
  technician_id: string | null;
  technician_name: string | null;
  technician_phone: string | null;
}

/**
 * Runs a statement giving rows of a table with a technician_id (a SELECT, or an INSERT or
 * UPDATE ... RETURNING *), named `alias`, and adds each row's technician; `orderBy` (over
 * `alias`) orders the result.
 */
export async function withTechnician<R extends WithTechnician>(
  db: Queryable,
  query: { alias: string; columns: string; statement: string; params: unknown[]; orderBy?: string },
): Promise<R[]> {
  const { alias } = query;
  const result = await db.query<R>(
    `WITH ${alias} AS (${query.statement})
     SELECT ${query.columns}, p.name AS technician_name, p.phone_number AS technician_phone
     FROM ${alias} LEFT JOIN fieldops.service_providers p ON p.org_id = ${alias}.org_id AND p.id = ${alias}.technician_id
     ${query.orderBy ? `ORDER BY ${query.orderBy}` : ""}`,
    query.params,
  );
  return result.rows;
}

/** The technician {id, name, phone_number} of a row, or undefined without one. */
export function technicianSummary(row: WithTechnician) {
  return row.technician_id === null || row.technician_name === null
    ? undefined
    : { id: row.technician_id, name: row.technician_name, phoneNumber: row.technician_phone ?? undefined };
}
