import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ServiceListingSchema, type ServiceListing } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

// A service listing row as the database returns it, and its mapping to the API message.

export interface ListingRow {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  category: string | null;
  /** bigint column; the drivers return it as a number (cents fit one). */
  price_cents: number | null;
  duration_minutes: number | null;
  is_available: boolean;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export const LISTING_COLUMNS =
  "id, org_id, name, description, category, price_cents, duration_minutes, is_available, is_active, created_at, updated_at";

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function toServiceListing(row: ListingRow): ServiceListing {
  return create(ServiceListingSchema, {
    id: row.id,
    name: row.name,
    description: opt(row.description),
    category: opt(row.category),
    priceCents: row.price_cents === null ? undefined : BigInt(row.price_cents),
    durationMinutes: opt(row.duration_minutes),
    isAvailable: row.is_available,
    isActive: row.is_active,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
