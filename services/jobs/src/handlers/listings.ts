import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { blankToNull, invalidArgument, newEvent, orgOf, updatedFields, notFound, tooShort, type ServiceContext, type Violation } from "@voiceops/platform";
import { ServiceListingChangedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import { ServiceListingFieldsSchema, type JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { toServiceListing } from "../store/listing-rows.js";
import { LISTING_FIELDS, type ListingField, type ListingValues } from "../store/listings.js";
import type { JobsStores } from "../store/index.js";

/** The writable listing fields, as both the create request and ServiceListingFields carry them. */
interface ListingInput {
  name?: string;
  description?: string;
  category?: string;
  priceCents?: bigint;
  durationMinutes?: number;
  isAvailable?: boolean;
  isActive?: boolean;
}

/**
 * Column values for the named fields. Blank optional text is stored as null; an absent number
 * (JSON null on update) clears it. The flags and the name are never cleared: the gateway
 * rejects null for them, and a gRPC caller that names them without a value changes nothing
 * (flags) or gets a violation (name).
 */
function listingValues(input: ListingInput, fields: Iterable<ListingField>, prefix = ""): { values: ListingValues; violations: Violation[] } {
  const values: ListingValues = {};
  const violations: Violation[] = [];
  for (const field of fields) {
    switch (field) {
      case "name": {
        const name = blankToNull(input.name);
        if (name === null) violations.push(tooShort(`${prefix}name`, input.name ?? null, 1));
        else values.name = name;
        break;
      }
      case "description":
        values.description = blankToNull(input.description);
        break;
      case "category":
        values.category = blankToNull(input.category);
        break;
      case "price_cents":
        values.price_cents = input.priceCents === undefined ? null : Number(input.priceCents);
        break;
      case "duration_minutes":
        values.duration_minutes = input.durationMinutes ?? null;
        break;
      case "is_available":
        if (input.isAvailable !== undefined) values.is_available = input.isAvailable;
        break;
      case "is_active":
        if (input.isActive !== undefined) values.is_active = input.isActive;
        break;
    }
  }
  return { values, violations };
}

/** Service listings: the catalog of services the business offers. */
export function listingHandlers(service: ServiceContext, stores: JobsStores) {
  const { db } = service;
  const store = stores.listings;
  return {
    async listServiceListings(req, ctx) {
      const org = orgOf(ctx);
      const page = req.page ?? 1;
      const pageSize = req.pageSize ?? 50;
      const { rows, total } = await store.list(db, org.orgId, {
        page,
        pageSize,
        isAvailable: req.isAvailable,
        isActive: req.isActive,
        search: req.search?.trim() || undefined,
      });
      return { items: rows.map(toServiceListing), total, page, pageSize };
    },

    async createServiceListing(req, ctx) {
      const org = orgOf(ctx);
      const { values, violations } = listingValues(req, LISTING_FIELDS);
      if (violations.length > 0 || values.name === undefined) throw invalidArgument(violations);
      const name = values.name;
      const row = await service.write(async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, { ...values, name });
        const listing = toServiceListing(inserted);
        emit(newEvent(org.orgId, "jobs.service_listing.created", ServiceListingChangedSchema, create(ServiceListingChangedSchema, { listingId: inserted.id, listing })));
        return inserted;
      });
      return { listing: toServiceListing(row) };
    },

    async getServiceListing(req, ctx) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.listingId);
      if (!row) throw notFound("Service listing");
      return { listing: toServiceListing(row) };
    },

    async updateServiceListing(req, ctx) {
      const org = orgOf(ctx);
      const fields = updatedFields(ServiceListingFieldsSchema, req.listing, req.updateMask, LISTING_FIELDS);
      const { values, violations } = listingValues(req.listing ?? {}, fields, "listing.");
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(async (tx, emit) => {
        if (Object.keys(values).length === 0) {
          // Nothing to change: answer the listing as it is, without touching updated_at.
          const existing = await store.get(tx, org.orgId, req.listingId);
          if (!existing) throw notFound("Service listing");
          return existing;
        }
        const updated = await store.update(tx, org.orgId, req.listingId, values);
        if (!updated) throw notFound("Service listing");
        const listing = toServiceListing(updated);
        emit(newEvent(org.orgId, "jobs.service_listing.updated", ServiceListingChangedSchema, create(ServiceListingChangedSchema, { listingId: updated.id, listing })));
        return updated;
      });
      return { listing: toServiceListing(row) };
    },

    async deleteServiceListing(req, ctx) {
      const org = orgOf(ctx);
      await service.write(async (tx, emit) => {
        const deletedId = await store.delete(tx, org.orgId, req.listingId);
        if (!deletedId) throw notFound("Service listing");
        emit(newEvent(org.orgId, "jobs.service_listing.deleted", ServiceListingChangedSchema, create(ServiceListingChangedSchema, { listingId: deletedId })));
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof JobsService>>;
}
