import type { AnyEventConsumer, EventConsumer, ServiceContext } from "@voiceops/platform";
import { ContactDeletedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { ServiceRequestDeletedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import { alertEvent } from "./handlers/alerts.js";
import { cancelDispatch } from "./handlers/dispatches.js";
import type { FieldopsStores } from "./store/index.js";

/**
 * When jobs deletes a service request, its active dispatches are cancelled and urgent alerts
 * drop the link; when the CRM deletes a contact, urgent alerts drop that link.
 */
export function fieldopsConsumers(service: ServiceContext, stores: FieldopsStores): AnyEventConsumer[] {
  const { clock } = service;
  return [
    {
      durable: "fieldops-jobs-service-request-deleted",
      subject: "jobs.service_request.deleted",
      schema: ServiceRequestDeletedSchema,
      async handle(event, tx, emit) {
        const { orgId } = event;
        const requestId = event.payload.serviceRequestId;
        const now = clock.now();
        for (const id of await stores.dispatches.activeIdsForRequest(tx, orgId, requestId)) {
          const row = await stores.dispatches.get(tx, orgId, id, { forUpdate: true });
          if (row) await cancelDispatch(tx, emit, stores.dispatches, orgId, row, now);
        }
        for (const row of await stores.alerts.unlink(tx, orgId, "service_request_id", requestId, now))
          emit(alertEvent(orgId, "updated", row));
      },
    } satisfies EventConsumer<typeof ServiceRequestDeletedSchema>,
    {
      durable: "fieldops-crm-contact-deleted",
      subject: "crm.contact.deleted",
      schema: ContactDeletedSchema,
      async handle(event, tx, emit) {
        for (const row of await stores.alerts.unlink(
          tx,
          event.orgId,
          "contact_id",
          event.payload.contactId,
          clock.now(),
        )) {
          emit(alertEvent(event.orgId, "updated", row));
        }
      },
    } satisfies EventConsumer<typeof ContactDeletedSchema>,
  ];
}
