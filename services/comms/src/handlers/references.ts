import { timestampDate } from "@bufbuild/protobuf/wkt";
import { foundOrUndefined, peerClient, referenceNotFound, type OrgContext, type ServiceContext, type Violation } from "@voiceops/platform";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import type { ContactCopy } from "../store/contacts.js";

export interface CheckedReferences {
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
  let crm: ReturnType<typeof peerClient<typeof CrmService>> | undefined;
  let jobs: ReturnType<typeof peerClient<typeof JobsService>> | undefined;

  return async function check(org: OrgContext, refs: { contactId: string | null; serviceRequestId: string | null }): Promise<CheckedReferences> {
    const violations: Violation[] = [];
    let contact: ContactCopy | undefined;
    const checks: Promise<void>[] = [];
    const { contactId, serviceRequestId } = refs;
    if (contactId) {
      crm ??= peerClient(CrmService, service.peer("crm"), service.internalToken);
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
      jobs ??= peerClient(JobsService, service.peer("jobs"), service.internalToken);
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
