import {
  foundOrUndefined,
  peer,
  referenceNotFound,
  type OrgContext,
  type ServiceContext,
  type Violation,
} from "@voiceops/platform";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";

/**
 * Checks that the contact and provider a request links to exist in the caller's organization,
 * by asking the services that own them. Runs before the write's transaction, so no database
 * transaction is held open across a call to another service.
 */
export function referenceChecker(service: ServiceContext) {
  const crm = peer(service, "crm", CrmService);
  const fieldops = peer(service, "fieldops", FieldopsService);

  const exists = async (lookup: () => Promise<unknown>): Promise<boolean> =>
    (await foundOrUndefined(lookup())) !== undefined;

  return async function check(
    org: OrgContext,
    refs: { contactId?: string | null; providerId?: string | null },
    prefix = "",
  ): Promise<Violation[]> {
    const violations: Violation[] = [];
    const checks: Promise<void>[] = [];
    if (refs.contactId) {
      const client = crm;
      const contactId = refs.contactId;
      checks.push(
        exists(() => client.client.getContact({ contactId }, client.as(org))).then((found) => {
          if (!found) violations.push(referenceNotFound(`${prefix}contact_id`, "contact", contactId));
        }),
      );
    }
    if (refs.providerId) {
      const client = fieldops;
      const providerId = refs.providerId;
      checks.push(
        exists(() => client.client.getServiceProvider({ providerId }, client.as(org))).then((found) => {
          if (!found) violations.push(referenceNotFound(`${prefix}provider_id`, "service provider", providerId));
        }),
      );
    }
    await Promise.all(checks);
    return violations.sort((a, b) => a.field.localeCompare(b.field));
  };
}

export type ReferenceChecker = ReturnType<typeof referenceChecker>;
