import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  enumToJson,
  newEvent,
  orgOf,
  type ServiceContext,
  notFound,
  withDefaults,
} from "@voiceops/platform";
import {
  EmergencyRaisedSchema,
  QuotePostedSchema,
  QuoteStatusChangedSchema,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import {
  MarkEmergencyRequestSchema,
  EmergencyTypeSchema,
  QuoteDecisionSchema,
  type CreateQuoteRequest,
  type MarkEmergencyRequest,
  type UpdateQuoteStatusRequest,
  type JobsService,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { toQuoteOfRequest, toServiceRequest } from "../store/rows.js";
import type { JobsStores } from "../store/index.js";

/** Quotes (posted, then approved, rejected or billed) and emergencies of service requests. */
export function quoteHandlers(service: ServiceContext, stores: JobsStores) {
  const { db } = service;
  const store = stores.requests;
  return {
    async createQuote(req: CreateQuoteRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write(ctx, async (tx, emit) => {
        const updated = await store.postQuote(tx, org.orgId, req.serviceRequestId, {
          amountCents: Number(req.quoteAmountCents ?? 0),
          diagnosticFeeCents: req.diagnosticFeeCents === undefined ? null : Number(req.diagnosticFeeCents),
          notes: blankToNull(req.notes),
        });
        if (!updated) throw notFound("Service request");
        emit(
          newEvent(
            org.orgId,
            "jobs.quote.posted",
            QuotePostedSchema,
            create(QuotePostedSchema, { quote: toQuoteOfRequest(updated) }),
          ),
        );
        return updated;
      });
      return { quote: toQuoteOfRequest(row) };
    },

    async updateQuoteStatus(req: UpdateQuoteStatusRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const status = enumToJson(QuoteDecisionSchema, req.status ?? 0);
      if (!status) throw new ConnectError("status is required", Code.InvalidArgument);
      const row = await service.write(ctx, async (tx, emit) => {
        const updated = await store.setQuoteStatus(tx, org.orgId, req.serviceRequestId, status);
        if (!updated) {
          const exists = await store.get(tx, org.orgId, req.serviceRequestId);
          throw exists
            ? new ConnectError("This service request has no quote", Code.NotFound)
            : notFound("Service request");
        }
        emit(
          newEvent(
            org.orgId,
            "jobs.quote.status_changed",
            QuoteStatusChangedSchema,
            create(QuoteStatusChangedSchema, { quote: toQuoteOfRequest(updated) }),
          ),
        );
        return updated;
      });
      return { quote: toQuoteOfRequest(row) };
    },

    async markEmergency(req: MarkEmergencyRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const type = enumToJson(EmergencyTypeSchema, req.emergencyType ?? 0);
      if (!type) throw new ConnectError("emergency_type is required", Code.InvalidArgument);
      const row = await service.write(ctx, async (tx, emit) => {
        const updated = await store.markEmergency(tx, org.orgId, req.serviceRequestId, {
          type,
          priority: withDefaults(MarkEmergencyRequestSchema, req, "emergencyPriority").emergencyPriority,
          notes: blankToNull(req.notes),
        });
        if (!updated) throw notFound("Service request");
        emit(
          newEvent(
            org.orgId,
            "jobs.emergency.raised",
            EmergencyRaisedSchema,
            create(EmergencyRaisedSchema, { serviceRequest: toServiceRequest(updated) }),
          ),
        );
        return updated;
      });
      return { serviceRequest: toServiceRequest(row) };
    },

    async listPendingQuotes(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const rows = await store.pendingQuotes(db, org.orgId);
      return {
        items: rows.map((row) => {
          const { $typeName: _quote, ...quote } = toQuoteOfRequest(row);
          return { ...quote, serviceRequest: toServiceRequest(row) };
        }),
        total: rows.length,
      };
    },

    async listActiveEmergencies(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const rows = await store.activeEmergencies(db, org.orgId);
      return { items: rows.map(toServiceRequest), total: rows.length };
    },
  } satisfies Partial<ServiceImpl<typeof JobsService>>;
}
