import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { AnyEventConsumer, EventConsumer, ReceivedEvent } from "@voiceops/platform";
import {
  ContactCreatedSchema,
  ContactDeletedSchema,
  ContactUpdatedSchema,
  type ContactCreated,
} from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { ServiceRequestDeletedSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import type { ActivityStore } from "./store/activities.js";
import type { ContactCopies, ContactCopy } from "./store/contacts.js";

/** The copy of each event's contact (events without one are skipped). */
function copiesOf(
  events: ReceivedEvent<typeof ContactCreatedSchema | typeof ContactUpdatedSchema>[],
): (ContactCopy & { orgId: string })[] {
  return events.flatMap((event) => {
    const contact = (event.payload as ContactCreated).contact;
    if (!contact) return [];
    const version = contact.updatedAt ? timestampDate(contact.updatedAt) : event.occurredAt;
    return [
      {
        orgId: event.orgId,
        id: contact.id,
        name: contact.name ?? null,
        phoneNumber: contact.phoneNumber ?? null,
        version,
      },
    ];
  });
}

/** Keeps the copy of a contact's name and number that calls and messages show. */
function copyContact(
  contacts: ContactCopies,
  durable: string,
  subject: string,
  schema: typeof ContactCreatedSchema | typeof ContactUpdatedSchema,
): EventConsumer<typeof schema> {
  return {
    durable,
    subject,
    schema,
    handle: (event, tx) => contacts.saveAll(tx, copiesOf([event])),
    handleAll: (events, tx) => contacts.saveAll(tx, copiesOf(events)),
  };
}

/**
 * Contacts' names and numbers follow the CRM; when the CRM deletes a contact or jobs a service
 * request, activities drop the dangling link.
 */
export function commsConsumers(activities: ActivityStore, contacts: ContactCopies): AnyEventConsumer[] {
  return [
    copyContact(contacts, "comms-crm-contact-created", "crm.contact.created", ContactCreatedSchema),
    copyContact(contacts, "comms-crm-contact-updated", "crm.contact.updated", ContactUpdatedSchema),
    {
      durable: "comms-crm-contact-deleted",
      subject: "crm.contact.deleted",
      schema: ContactDeletedSchema,
      async handle(event, tx) {
        await contacts.remove(tx, event.orgId, event.payload.contactId);
        await activities.unlink(tx, event.orgId, "contact_id", event.payload.contactId);
      },
    } satisfies EventConsumer<typeof ContactDeletedSchema>,
    {
      durable: "comms-jobs-service-request-deleted",
      subject: "jobs.service_request.deleted",
      schema: ServiceRequestDeletedSchema,
      async handle(event, tx) {
        await activities.unlink(tx, event.orgId, "service_request_id", event.payload.serviceRequestId);
      },
    } satisfies EventConsumer<typeof ServiceRequestDeletedSchema>,
  ];
}
