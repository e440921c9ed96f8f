import { Code, ConnectError } from "@connectrpc/connect";
import { peerClient, type OrgContext, type ServiceContext } from "@voiceops/platform";
import { CrmService, type Contact, type Lead } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";

/** undefined when the peer answers NOT_FOUND; other errors propagate. */
async function found<T>(lookup: () => Promise<T>): Promise<T | undefined> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.NotFound) return undefined;
    throw error;
  }
}

/**
 * Reads contacts and leads from the CRM service over gRPC, in the caller's organization. Runs
 * before a write's transaction, so no transaction is held across a call to another service.
 */
export function crmLookup(service: ServiceContext) {
  let crm: ReturnType<typeof peerClient<typeof CrmService>> | undefined;
  const client = () => (crm ??= peerClient(CrmService, service.peer("crm"), service.internalToken));
  return {
    async contact(org: OrgContext, contactId: string): Promise<Contact | undefined> {
      const c = client();
      return (await found(() => c.client.getContact({ contactId }, c.as(org))))?.contact;
    },
    async lead(org: OrgContext, leadId: string): Promise<Lead | undefined> {
      const c = client();
      return (await found(() => c.client.getLead({ leadId }, c.as(org))))?.lead;
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
