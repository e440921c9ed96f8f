import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  columnValues,
  endOfLocalDay,
  invalidArgument,
  newEvent,
  orgOf,
  updatedFields,
  type ServiceContext,
  notFound,
  enumFilter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ServiceRequestCreatedSchema,
  ServiceRequestDeletedSchema,
  ServiceRequestUpdatedSchema,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import {
  CreateServiceRequestRequestSchema,
  ListServiceRequestsRequestSchema,
  ServiceRequestFieldsSchema,
  ServiceRequestPrioritySchema,
  ServiceRequestStatusSchema,
  type CreateServiceRequestRequest,
  type DeleteServiceRequestRequest,
  type GetServiceRequestRequest,
  type ListServiceRequestsRequest,
  type UpdateServiceRequestRequest,
  type JobsService,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { REQUEST_FIELDS, type RequestValues } from "../store/requests.js";
import { toServiceRequest } from "../store/rows.js";
import type { ReferenceChecker } from "../peers.js";
import type { JobsStores } from "../store/index.js";

export function requestHandlers(service: ServiceContext, stores: JobsStores, checkReferences: ReferenceChecker) {
  const { db } = service;
  const store = stores.requests;
  return {
    async listServiceRequests(req: ListServiceRequestsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListServiceRequestsRequestSchema, req);
      const listing = await store.list(db, org.orgId, {
        ...paging,
        status: enumFilter(ServiceRequestStatusSchema, req.status),
        priority: enumFilter(ServiceRequestPrioritySchema, req.priority),
        contactId: req.contactId?.toLowerCase(),
        search: req.search?.trim() || undefined,
        dueBefore: req.dueDays === undefined ? undefined : endOfLocalDay(org.timezone, req.dueDays),
      });
      return pageAnswer(paging, listing, toServiceRequest);
    },

    async createServiceRequest(req: CreateServiceRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const { values } = columnValues<RequestValues>(CreateServiceRequestRequestSchema, req, REQUEST_FIELDS);
      const violations = await checkReferences(org, {
        contactId: values.contact_id as string | null,
        providerId: values.provider_id as string | null,
      });
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, values);
        emit(
          newEvent(
            org.orgId,
            "jobs.service_request.created",
            ServiceRequestCreatedSchema,
            create(ServiceRequestCreatedSchema, { serviceRequest: toServiceRequest(inserted) }),
          ),
        );
        return inserted;
      });
      return { serviceRequest: toServiceRequest(row) };
    },

    async getServiceRequest(req: GetServiceRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.serviceRequestId);
      if (!row) throw notFound("Service request");
      return { serviceRequest: toServiceRequest(row) };
    },

    async updateServiceRequest(req: UpdateServiceRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(ServiceRequestFieldsSchema, req.serviceRequest, req.updateMask, REQUEST_FIELDS);
      const { values } = columnValues<RequestValues>(
        ServiceRequestFieldsSchema,
        req.serviceRequest ?? create(ServiceRequestFieldsSchema),
        fields,
      );
      // An unknown request is a 404 before any check of what the body links to.
      if (!(await store.get(db, org.orgId, req.serviceRequestId))) throw notFound("Service request");
      const violations = await checkReferences(
        org,
        {
          contactId: values.contact_id as string | null | undefined,
          providerId: values.provider_id as string | null | undefined,
        },
        "service_request.",
      );
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx, emit) => {
        const updated =
          fields.length === 0
            ? await store.get(tx, org.orgId, req.serviceRequestId)
            : await store.update(tx, org.orgId, req.serviceRequestId, values);
        if (!updated) throw notFound("Service request");
        if (fields.length > 0) {
          emit(
            newEvent(
              org.orgId,
              "jobs.service_request.updated",
              ServiceRequestUpdatedSchema,
              create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(updated) }),
            ),
          );
        }
        return updated;
      });
      return { serviceRequest: toServiceRequest(row) };
    },

    async deleteServiceRequest(req: DeleteServiceRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        if (!(await store.delete(tx, org.orgId, req.serviceRequestId))) throw notFound("Service request");
        emit(
          newEvent(
            org.orgId,
            "jobs.service_request.deleted",
            ServiceRequestDeletedSchema,
            create(ServiceRequestDeletedSchema, { serviceRequestId: req.serviceRequestId }),
          ),
        );
      });
      return {};
    },

    async getServiceRequestStats(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const stats = await store.stats(db, org.orgId);
      return {
        openTotal: stats.open_total,
        emergencies: stats.emergencies,
        pendingQuotes: stats.pending_quotes,
        assigned: stats.assigned,
      };
    },
  } satisfies Partial<ServiceImpl<typeof JobsService>>;
}
