import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { newEvent, type AnyEventConsumer, type EventConsumer } from "@voiceops/platform";
import { ContactDeletedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { ServiceProviderDeletedSchema } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import { ServiceRequestUpdatedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import type { RequestStore } from "./store/requests.js";
import { toServiceRequest } from "./store/rows.js";

/** A consumer that clears a request column naming a record another service deleted. */
function unlinkWhenDeleted<Desc extends DescMessage>(
  store: RequestStore,
  spec: { durable: string; subject: string; schema: Desc; column: "contact_id" | "provider_id"; deletedId: (payload: MessageShape<Desc>) => string },
): EventConsumer<Desc> {
  return {
    durable: spec.durable,
    subject: spec.subject,
    schema: spec.schema,
    async handle(event, tx, emit) {
      for (const row of await store.unlink(tx, event.orgId, spec.column, spec.deletedId(event.payload))) {
        emit(newEvent(event.orgId, "jobs.service_request.updated", ServiceRequestUpdatedSchema, create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(row) })));
      }
    },
  };
}

/** When the CRM deletes a contact, or field ops a provider, requests drop the dangling link. */
export function jobsConsumers(store: RequestStore): AnyEventConsumer[] {
  return [
    unlinkWhenDeleted(store, {
      durable: "jobs-crm-contact-deleted",
      subject: "crm.contact.deleted",
      schema: ContactDeletedSchema,
      column: "contact_id",
      deletedId: (payload) => payload.contactId,
    }),
    unlinkWhenDeleted(store, {
      durable: "jobs-fieldops-provider-deleted",
      subject: "fieldops.provider.deleted",
      schema: ServiceProviderDeletedSchema,
      column: "provider_id",
      deletedId: (payload) => payload.providerId,
    }),
  ];
}
