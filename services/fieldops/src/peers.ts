import { Code, ConnectError } from "@connectrpc/connect";
import {
  foundOrUndefined,
  invalidArgument,
  peer,
  violationsOf,
  type OrgContext,
  type ServiceContext,
} from "@voiceops/platform";
import { CrmService, type Contact, type UpsertContactRequest } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { JobsService, type ServiceRequest } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

/**
 * Reads the records of other services that field operations link to, as the caller's
 * organization (so another organization's record is not found). Called before a write's
 * transaction, so no database transaction is held open across a call to another service.
 */
export function peerLookups(service: ServiceContext) {
  const jobs = peer(service, "jobs", JobsService);
  const crm = peer(service, "crm", CrmService);
  return {
    /** The service request, or undefined when it is not in the caller's organization. */
    async serviceRequest(org: OrgContext, serviceRequestId: string): Promise<ServiceRequest | undefined> {
      const response = await foundOrUndefined(jobs.client.getServiceRequest({ serviceRequestId }, jobs.as(org)));
      return response?.serviceRequest;
    },

    async contactExists(org: OrgContext, contactId: string): Promise<boolean> {
      return (await foundOrUndefined(crm.client.getContact({ contactId }, crm.as(org)))) !== undefined;
    },

    /**
     * The contact of a booking, found or created by the CRM as POST /api/leads does. The CRM's
     * 422s are placed on the booking's fields: contact_id, or contact.<field>.
     */
    async upsertContact(org: OrgContext, reference: Partial<UpsertContactRequest>): Promise<Contact> {
      try {
        const response = await crm.client.upsertContact(reference, crm.as(org));
        if (!response.contact) throw new ConnectError("the CRM answered no contact", Code.Internal);
        return response.contact;
      } catch (error) {
        const failure = ConnectError.from(error);
        if (failure.code !== Code.InvalidArgument) throw error;
        throw invalidArgument(
          violationsOf(failure).map((v) => ({
            ...v,
            field: v.field === "contact_id" ? v.field : v.field ? `contact.${v.field}` : "contact",
          })),
        );
      }
    },
  };
}

export type PeerLookups = ReturnType<typeof peerLookups>;
