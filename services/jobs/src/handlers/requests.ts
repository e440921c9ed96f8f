import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { blankToNull, endOfLocalDay, enumToJson, invalidArgument, newEvent, orgOf, updatedFields, type ServiceContext, notFound } from "@voiceops/platform";
import { ServiceRequestCreatedSchema, ServiceRequestDeletedSchema, ServiceRequestUpdatedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import {
  ServiceRequestFieldsSchema,
  ServiceRequestPrioritySchema,
  ServiceRequestStatusSchema,
  type CreateServiceRequestRequest,
  type DeleteServiceRequestRequest,
  type GetServiceRequestRequest,
  type ListServiceRequestsRequest,
  type ServiceRequestFields,
  type UpdateServiceRequestRequest,
  type JobsService,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { REQUEST_FIELDS, type RequestField, type RequestValues } from "../store/requests.js";
import { toServiceRequest } from "../store/rows.js";
import type { ReferenceChecker } from "./references.js";
import type { JobsStores } from "../store/index.js";

/** Column values of the named fields of a create or update payload. */
function requestValues(input: ServiceRequestFields | CreateServiceRequestRequest, fields: readonly RequestField[]): RequestValues {
  const values: RequestValues = {};
  for (const field of fields) {
    switch (field) {
      case "contact_id":
        values.contact_id = input.contactId?.toLowerCase() ?? null;
        break;
      case "provider_id":
        values.provider_id = input.providerId?.toLowerCase() ?? null;
        break;
      case "address":
        values.address = blankToNull(input.address);
        break;
      case "category":
        values.category = blankToNull(input.category);
        break;
      case "description":
        if (input.description !== undefined) values.description = input.description.trim();
        break;
      case "priority":
        if (input.priority !== undefined) values.priority = enumToJson(ServiceRequestPrioritySchema, input.priority);
        break;
      case "status":
        if (input.status !== undefined) values.status = enumToJson(ServiceRequestStatusSchema, input.status);
        break;
      case "due_at":
        values.due_at = input.dueAt ? timestampDate(input.dueAt) : null;
        break;
    }
  }
  return values;
}

export function requestHandlers(service: ServiceContext, stores: JobsStores, checkReferences: ReferenceChecker) {
  const { db } = service;
  const store = stores.requests;
  return {
    async listServiceRequests(req: ListServiceRequestsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const page = req.page ?? 1;
      const pageSize = req.pageSize ?? 10;
      const { rows, total } = await store.list(db, org.orgId, {
        page,
        pageSize,
        status: req.status === undefined ? undefined : (enumToJson(ServiceRequestStatusSchema, req.status) ?? undefined),
        priority: req.priority === undefined ? undefined : (enumToJson(ServiceRequestPrioritySchema, req.priority) ?? undefined),
        contactId: req.contactId?.toLowerCase(),
        search: req.search?.trim() || undefined,
        dueBefore: req.dueDays === undefined ? undefined : endOfLocalDay(org.timezone, req.dueDays),
      });
      return { items: rows.map(toServiceRequest), total, page, pageSize };
    },

    async createServiceRequest(req: CreateServiceRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const values = requestValues(req, REQUEST_FIELDS);
      const violations = await checkReferences(org, { contactId: values.contact_id as string | null, providerId: values.provider_id as string | null });
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, values);
        emit(newEvent(org.orgId, "jobs.service_request.created", ServiceRequestCreatedSchema, create(ServiceRequestCreatedSchema, { serviceRequest: toServiceRequest(inserted) })));
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
      const values = requestValues(req.serviceRequest ?? create(ServiceRequestFieldsSchema), fields);
      // An unknown request is a 404 before any check of what the body links to.
      if (!(await store.get(db, org.orgId, req.serviceRequestId))) throw notFound("Service request");
      const violations = await checkReferences(
        org,
        { contactId: values.contact_id as string | null | undefined, providerId: values.provider_id as string | null | undefined },
        "service_request.",
      );
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(async (tx, emit) => {
        const updated = fields.length === 0 ? await store.get(tx, org.orgId, req.serviceRequestId) : await store.update(tx, org.orgId, req.serviceRequestId, values);
        if (!updated) throw notFound("Service request");
        if (fields.length > 0) {
          emit(
            newEvent(org.orgId, "jobs.service_request.updated", ServiceRequestUpdatedSchema, create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(updated) })),
          );
        }
        return updated;
      });
      return { serviceRequest: toServiceRequest(row) };
    },

    async deleteServiceRequest(req: DeleteServiceRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(async (tx, emit) => {
        if (!(await store.delete(tx, org.orgId, req.serviceRequestId))) throw notFound("Service request");
        emit(newEvent(org.orgId, "jobs.service_request.deleted", ServiceRequestDeletedSchema, create(ServiceRequestDeletedSchema, { serviceRequestId: req.serviceRequestId })));
      });
      return {};
    },

    async getServiceRequestStats(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const stats = await store.stats(db, org.orgId);
      return { openTotal: stats.open_total, emergencies: stats.emergencies, pendingQuotes: stats.pending_quotes, assigned: stats.assigned };
    },
  } satisfies Partial<ServiceImpl<typeof JobsService>>;
}
