import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { newEvent, type AnyEventConsumer, type EventConsumer } from "@voiceops/platform";
import { ContactDeletedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import {
  DispatchCreatedSchema,
  DispatchUpdatedSchema,
  ServiceProviderDeletedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import type { Dispatch } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { ServiceRequestUpdatedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import type { JobsStores } from "./store/index.js";
import type { RequestStore } from "./store/requests.js";
import { toServiceRequest } from "./store/rows.js";

/** A consumer that clears a request column naming a record another service deleted. */
function unlinkWhenDeleted<Desc extends DescMessage>(
  store: RequestStore,
  spec: {
    durable: string;
    subject: string;
    schema: Desc;
    column: "contact_id" | "provider_id";
    deletedId: (payload: MessageShape<Desc>) => string;
  },
): EventConsumer<Desc> {
  return {
    durable: spec.durable,
    subject: spec.subject,
    schema: spec.schema,
    async handle(event, tx, emit) {
      for (const row of await store.unlink(tx, event.orgId, spec.column, spec.deletedId(event.payload))) {
        emit(
          newEvent(
            event.orgId,
            "jobs.service_request.updated",
            ServiceRequestUpdatedSchema,
            create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(row) }),
          ),
        );
      }
    },
  };
}

/** A consumer of a dispatch event: a dispatch with a technician gives a request without a provider that technician. */
function assignFromDispatch<Desc extends typeof DispatchCreatedSchema | typeof DispatchUpdatedSchema>(
  store: RequestStore,
  spec: { durable: string; subject: string; schema: Desc },
): EventConsumer<Desc> {
  return {
    ...spec,
    async handle(event, tx, emit) {
      const dispatch: Dispatch | undefined = event.payload.dispatch;
      if (!dispatch?.technicianId) return;
      const row = await store.assignProviderIfNone(tx, event.orgId, dispatch.serviceRequestId, dispatch.technicianId);
      if (row)
        emit(
          newEvent(
            event.orgId,
            "jobs.service_request.updated",
            ServiceRequestUpdatedSchema,
            create(ServiceRequestUpdatedSchema, { serviceRequest: toServiceRequest(row) }),
          ),
        );
    },
  };
}

/**
 * When the CRM deletes a contact, or field ops a provider, requests drop the dangling link; a
 * dispatch with a technician sets the provider of a request that has none.
 */
export function jobsConsumers(stores: JobsStores): AnyEventConsumer[] {
  const store = stores.requests;
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
    assignFromDispatch(store, {
      durable: "jobs-fieldops-dispatch-created",
      subject: "fieldops.dispatch.created",
      schema: DispatchCreatedSchema,
    }),
    assignFromDispatch(store, {
      durable: "jobs-fieldops-dispatch-updated",
      subject: "fieldops.dispatch.updated",
      schema: DispatchUpdatedSchema,
    }),
  ];
}
