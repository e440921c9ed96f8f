import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  foundOrUndefined,
  peer,
  referenceNotFound,
  type OrgContext,
  type ServiceContext,
  type Violation,
} from "@voiceops/platform";
import { CrmService, type Contact, type Lead } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import type { ContactCopy } from "./store/contacts.js";

// Every call comms makes to another service: the reference checks of activities and the CRM
// lookups of outbound calling.

interface CheckedReferences {
  violations: Violation[];
  /** The linked contact as the CRM has it now, when there is one. */
  contact: ContactCopy | undefined;
}

/**
 * Checks that the contact and service request an activity links to exist in the caller's
 * organization, by asking the CRM and jobs services. Runs before the write's transaction, so no
 * database transaction is held open across a call to another service.
 */
export function referenceChecker(service: ServiceContext) {
  const crm = peer(service, "crm", CrmService);
  const jobs = peer(service, "jobs", JobsService);

  return async function check(
    org: OrgContext,
    refs: { contactId: string | null; serviceRequestId: string | null },
  ): Promise<CheckedReferences> {
    const violations: Violation[] = [];
    let contact: ContactCopy | undefined;
    const checks: Promise<void>[] = [];
    const { contactId, serviceRequestId } = refs;
    if (contactId) {
      const client = crm;
      checks.push(
        foundOrUndefined(client.client.getContact({ contactId }, client.as(org))).then((found) => {
          const record = found?.contact;
          if (!record) violations.push(referenceNotFound("contact_id", "contact", contactId));
          else
            contact = {
              id: record.id,
              name: record.name ?? null,
              phoneNumber: record.phoneNumber ?? null,
              version: record.updatedAt ? timestampDate(record.updatedAt) : new Date(0),
            };
        }),
      );
    }
    if (serviceRequestId) {
      const client = jobs;
      checks.push(
        foundOrUndefined(client.client.getServiceRequest({ serviceRequestId }, client.as(org))).then((found) => {
          if (!found) violations.push(referenceNotFound("service_request_id", "service request", serviceRequestId));
        }),
      );
    }
    await Promise.all(checks);
    return { violations: violations.sort((a, b) => a.field.localeCompare(b.field)), contact };
  };
}

export type ReferenceChecker = ReturnType<typeof referenceChecker>;

/**
 * Reads contacts and leads from the CRM service over gRPC, in the caller's organization. Runs
 * before a write's transaction, so no transaction is held across a call to another service.
 */
export function crmLookup(service: ServiceContext) {
  const crm = peer(service, "crm", CrmService);
  const client = () => crm;
  return {
    async contact(org: OrgContext, contactId: string): Promise<Contact | undefined> {
      const c = client();
      return (await foundOrUndefined(c.client.getContact({ contactId }, c.as(org))))?.contact;
    },
    async lead(org: OrgContext, leadId: string): Promise<Lead | undefined> {
      const c = client();
      return (await foundOrUndefined(c.client.getLead({ leadId }, c.as(org))))?.lead;
    },
    /** Many contacts, a few calls at a time; an unknown id maps to undefined. */
    async contacts(org: OrgContext, ids: readonly string[], concurrency = 8): Promise<(Contact | undefined)[]> {
      const out: (Contact | undefined)[] = new Array(ids.length);
      let next = 0;
      const worker = async () => {
        while (next < ids.length) {
          const index = next++;
          out[index] = await this.contact(org, ids[index] as string);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
      return out;
    },
  };
}

export type CrmLookup = ReturnType<typeof crmLookup>;
