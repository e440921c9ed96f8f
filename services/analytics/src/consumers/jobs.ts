import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { enumToJson, handlerOf, type Queryable, type StreamConsumer } from "@voiceops/platform";
import {
  EmergencyRaisedSchema,
  QuotePostedSchema,
  QuoteStatusChangedSchema,
  ServiceRequestCreatedSchema,
  ServiceRequestDeletedSchema,
  ServiceRequestUpdatedSchema,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import {
  QuoteStatusSchema,
  ServiceRequestPrioritySchema,
  ServiceRequestStatusSchema,
  type QuoteOfRequest,
  type ServiceRequest,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { addToBuckets } from "../store/buckets.js";
import { Counter, Metric } from "../model/names.js";
import { applyRecord } from "../store/records.js";
import { setUpcoming } from "../store/upcoming.js";

const dateOf = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp) : undefined);

/** Statuses in which an approved amount counts as value won. */
const VALUE_STATUSES = new Set(["approved", "billed"]);

async function applyRequest(tx: Queryable, orgId: string, request: ServiceRequest): Promise<boolean> {
  const status = enumToJson(ServiceRequestStatusSchema, request.status) ?? "new";
  const priority = enumToJson(ServiceRequestPrioritySchema, request.priority) ?? "MEDIUM";
  const open = status !== "completed" && status !== "cancelled";
  const counters = [Counter.requestStatus(status), Counter.requestPriority(priority)];
  if (open) counters.push(Counter.requestsOpen);
  if (open && request.isEmergency) counters.push(Counter.emergenciesActive);
  const applied = await applyRecord(tx, orgId, "service_request", request.id, {
    counters,
    version: dateOf(request.updatedAt),
  });
  if (applied === undefined) return false;
  const due = dateOf(request.dueAt);
  const title = request.category ? `${request.category}: ${request.description}` : request.description;
  await setUpcoming(
    tx,
    orgId,
    "service_request_due",
    request.id,
    open && due ? { at: due, title: title.slice(0, 200), contactId: request.contactId } : null,
  );
  return true;
}

async function applyQuote(tx: Queryable, orgId: string, quote: QuoteOfRequest, at: Date): Promise<void> {
  const status = enumToJson(QuoteStatusSchema, quote.status) ?? "pending";
  const previous = await applyRecord(tx, orgId, "quote", quote.serviceRequestId, {
    counters: status === "pending" ? [Counter.quotesPending] : [],
    attrs: { status },
    version: dateOf(quote.updatedAt),
  });
  if (previous === undefined) return;
  const was = typeof previous?.attrs.status === "string" ? previous.attrs.status : "";
  if (VALUE_STATUSES.has(status) && !VALUE_STATUSES.has(was)) {
    await addToBuckets(tx, orgId, dateOf(quote.updatedAt) ?? at, {
      [Metric.quoteValueCents]: Number(quote.quoteAmountCents),
    });
  }
}

/** Service requests and their quotes, in the order the jobs service published them. */
export const jobsConsumer: StreamConsumer = {
  durable: "analytics-jobs",
  subject: "jobs.>",
  handlers: {
    "jobs.service_request.created": handlerOf(ServiceRequestCreatedSchema, async (event, tx) => {
      const request = event.payload.serviceRequest;
      if (!request || !(await applyRequest(tx, event.orgId, request))) return;
      await addToBuckets(tx, event.orgId, dateOf(request.createdAt) ?? event.occurredAt, {
        [Metric.requestsCreated]: 1,
      });
    }),
    "jobs.service_request.updated": handlerOf(ServiceRequestUpdatedSchema, async (event, tx) => {
      if (event.payload.serviceRequest) await applyRequest(tx, event.orgId, event.payload.serviceRequest);
    }),
    "jobs.emergency.raised": handlerOf(EmergencyRaisedSchema, async (event, tx) => {
      if (event.payload.serviceRequest) await applyRequest(tx, event.orgId, event.payload.serviceRequest);
    }),
    "jobs.service_request.deleted": handlerOf(ServiceRequestDeletedSchema, async (event, tx) => {
      const id = event.payload.serviceRequestId.toLowerCase();
      await applyRecord(tx, event.orgId, "service_request", id, null);
      await applyRecord(tx, event.orgId, "quote", id, null);
      await setUpcoming(tx, event.orgId, "service_request_due", id, null);
    }),
    "jobs.quote.posted": handlerOf(QuotePostedSchema, async (event, tx) => {
      if (event.payload.quote) await applyQuote(tx, event.orgId, event.payload.quote, event.occurredAt);
    }),
    "jobs.quote.status_changed": handlerOf(QuoteStatusChangedSchema, async (event, tx) => {
      if (event.payload.quote) await applyQuote(tx, event.orgId, event.payload.quote, event.occurredAt);
    }),
  },
};
