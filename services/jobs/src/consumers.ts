import { create } from "@bufbuild/protobuf";
import { newEvent, type AnyEventConsumer, type EventConsumer } from "@voiceops/platform";
import { ContactDeletedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { ServiceProviderDeletedSchema } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import { ServiceRequestUpdatedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import type { RequestStore } from "./store/requests.js";
import { toServiceRequest } from "./store/rows.js";

/** When the CRM deletes a contact, or field ops a provider, requests drop the dangling link. */
export function jobsConsumers(store: RequestStore): AnyEventConsumer[] {
  const contactDeleted: EventConsumer<typeof ContactDeletedSchema> = {
    durable: "jobs-crm-contact-deleted",
    subject: "crm.contact.deleted",
    schema: ContactDeletedSchema,
    async handle(event, tx, emit) {
      for (const row of await store.unlink(tx, event.orgId, "contact_id", event.payload.contactId)) {
        emit(newEvent(event.orgId, "jobs.service_request.updated", ServiceRequestUpdatedSchema, create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(row) })));
      }
    },
  };
  const providerDeleted: EventConsumer<typeof ServiceProviderDeletedSchema> = {
    durable: "jobs-fieldops-provider-deleted",
    subject: "fieldops.provider.deleted",
    schema: ServiceProviderDeletedSchema,
    async handle(event, tx, emit) {
      for (const row of await store.unlink(tx, event.orgId, "provider_id", event.payload.providerId)) {
        emit(newEvent(event.orgId, "jobs.service_request.updated", ServiceRequestUpdatedSchema, create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(row) })));
      }
    },
  };
  return [contactDeleted, providerDeleted];
}
