import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  columnValues,
  invalidArgument,
  newEvent,
  orgOf,
  requiredText,
  updatedFields,
  type ServiceContext,
  notFound,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import { ServiceListingChangedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import {
  CreateServiceListingRequestSchema,
  ListServiceListingsRequestSchema,
  ServiceListingFieldsSchema,
  type JobsService,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { toServiceListing } from "../store/listing-rows.js";
import { LISTING_FIELDS, type ListingValues } from "../store/listings.js";
import type { JobsStores } from "../store/index.js";

/** Service listings: the catalog of services the business offers. */
export function listingHandlers(service: ServiceContext, stores: JobsStores) {
  const { db } = service;
  const store = stores.listings;
  return {
    async listServiceListings(req, ctx) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListServiceListingsRequestSchema, req);
      const listing = await store.list(db, org.orgId, {
        ...paging,
        isAvailable: req.isAvailable,
        isActive: req.isActive,
        search: req.search?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toServiceListing);
    },

    async createServiceListing(req, ctx) {
      const org = orgOf(ctx);
      const { values, violations } = columnValues<ListingValues>(
        CreateServiceListingRequestSchema,
        req,
        LISTING_FIELDS,
        { overrides: { name: requiredText } },
      );
      if (violations.length > 0 || values.name === undefined) throw invalidArgument(violations);
      const name = values.name;
      const row = await service.write(ctx, async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, { ...values, name });
        const listing = toServiceListing(inserted);
        emit(
          newEvent(
            org.orgId,
            "jobs.service_listing.created",
            ServiceListingChangedSchema,
            create(ServiceListingChangedSchema, { listingId: inserted.id, listing }),
          ),
        );
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
      const { values, violations } = columnValues<ListingValues>(
        ServiceListingFieldsSchema,
        req.listing ?? create(ServiceListingFieldsSchema),
        fields,
        {
          prefix: "listing.",
          overrides: { name: requiredText },
        },
      );
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx, emit) => {
        if (Object.keys(values).length === 0) {
          // Nothing to change: answer the listing as it is, without touching updated_at.
          const existing = await store.get(tx, org.orgId, req.listingId);
          if (!existing) throw notFound("Service listing");
          return existing;
        }
        const updated = await store.update(tx, org.orgId, req.listingId, values);
        if (!updated) throw notFound("Service listing");
        const listing = toServiceListing(updated);
        emit(
          newEvent(
            org.orgId,
            "jobs.service_listing.updated",
            ServiceListingChangedSchema,
            create(ServiceListingChangedSchema, { listingId: updated.id, listing }),
          ),
        );
        return updated;
      });
      return { listing: toServiceListing(row) };
    },

    async deleteServiceListing(req, ctx) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const deletedId = await store.delete(tx, org.orgId, req.listingId);
        if (!deletedId) throw notFound("Service listing");
        emit(
          newEvent(
            org.orgId,
            "jobs.service_listing.deleted",
            ServiceListingChangedSchema,
            create(ServiceListingChangedSchema, { listingId: deletedId }),
          ),
        );
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof JobsService>>;
}
