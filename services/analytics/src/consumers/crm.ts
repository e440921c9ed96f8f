import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { enumToJson, handlerOf, type Queryable, type StreamConsumer } from "@voiceops/platform";
import {
  ContactCreatedSchema,
  ContactDeletedSchema,
  ContactUpdatedSchema,
  LeadCreatedSchema,
  LeadDeletedSchema,
  LeadUpdatedSchema,
  PortalTokenCreatedSchema,
  PortalTokensRevokedSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import {
  ContactStatusSchema,
  LeadStatusSchema,
  type Contact,
  type Lead,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { addToBuckets } from "../store/buckets.js";
import { Counter, Metric } from "../model/names.js";
import { applyRecord, applyRecords, type RecordChange } from "../store/records.js";
import { addPortalToken, revokeTokens } from "../store/portal-tokens.js";
import { setUpcoming } from "../store/upcoming.js";

const dateOf = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp) : undefined);

function contactChange(orgId: string, contact: Contact): RecordChange {
  const customer = enumToJson(ContactStatusSchema, contact.status) === "customer";
  return {
    orgId,
    kind: "contact",
    id: contact.id,
    next: {
      counters: customer ? [Counter.contacts, Counter.customers] : [Counter.contacts],
      version: dateOf(contact.updatedAt),
    },
  };
}

/** The contacts of created or updated events, moved in one statement where they are distinct. */
async function applyContacts(
  tx: Queryable,
  events: { orgId: string; payload: { contact?: Contact } }[],
): Promise<void> {
  const changes = events.flatMap(({ orgId, payload }) =>
    payload.contact ? [contactChange(orgId, payload.contact)] : [],
  );
  if (changes.length > 0) await applyRecords(tx, changes);
}

function isOpen(lead: Lead): boolean {
  const status = enumToJson(LeadStatusSchema, lead.status);
  return status !== "won" && status !== "lost";
}

async function applyLead(tx: Queryable, orgId: string, lead: Lead): Promise<boolean> {
  const open = isOpen(lead);
  const applied = await applyRecord(tx, orgId, "lead", lead.id, {
    counters: open ? [Counter.leadsOpen] : [],
    version: dateOf(lead.updatedAt),
  });
  if (applied === undefined) return false;
  const due = dateOf(lead.nextStepDueAt);
  await setUpcoming(
    tx,
    orgId,
    "lead_follow_up",
    lead.id,
    open && due
      ? { at: due, title: lead.nextStep ?? `Follow up with ${lead.contact?.name ?? "lead"}`, contactId: lead.contactId }
      : null,
  );
  return true;
}

/** Contacts and leads, in the order the CRM published them. */
export const crmConsumer: StreamConsumer = {
  durable: "analytics-crm",
  subject: "crm.>",
  handlers: {
    "crm.contact.created": handlerOf(
      ContactCreatedSchema,
      (event, tx) => applyContacts(tx, [event]),
      (events, tx) => applyContacts(tx, events),
    ),
    "crm.contact.updated": handlerOf(
      ContactUpdatedSchema,
      (event, tx) => applyContacts(tx, [event]),
      (events, tx) => applyContacts(tx, events),
    ),
    "crm.contact.deleted": handlerOf(ContactDeletedSchema, async (event, tx) => {
      await applyRecord(tx, event.orgId, "contact", event.payload.contactId.toLowerCase(), null);
      await tx.query(`DELETE FROM analytics.portal_tokens WHERE org_id = $1 AND contact_id = $2`, [
        event.orgId,
        event.payload.contactId.toLowerCase(),
      ]);
    }),
    "crm.lead.created": handlerOf(LeadCreatedSchema, async (event, tx) => {
      const lead = event.payload.lead;
      if (!lead || !(await applyLead(tx, event.orgId, lead))) return;
      await addToBuckets(tx, event.orgId, dateOf(lead.createdAt) ?? event.occurredAt, {
        [Metric.leadsCreated]: 1,
        [Metric.leadValueCents]: Number(lead.estimatedValueCents ?? 0n),
      });
    }),
    "crm.lead.updated": handlerOf(LeadUpdatedSchema, async (event, tx) => {
      if (event.payload.lead) await applyLead(tx, event.orgId, event.payload.lead);
    }),
    "crm.portal_token.created": handlerOf(PortalTokenCreatedSchema, async (event, tx) => {
      const { tokenId, contactId, expiresAt, revokedTokenIds } = event.payload;
      await revokeTokens(tx, event.orgId, revokedTokenIds);
      await addPortalToken(tx, event.orgId, tokenId, contactId, dateOf(expiresAt) ?? event.occurredAt);
    }),
    "crm.portal_token.revoked": handlerOf(PortalTokensRevokedSchema, async (event, tx) => {
      await revokeTokens(tx, event.orgId, event.payload.tokenIds);
    }),
    "crm.lead.deleted": handlerOf(LeadDeletedSchema, async (event, tx) => {
      await applyRecord(tx, event.orgId, "lead", event.payload.leadId.toLowerCase(), null);
      await setUpcoming(tx, event.orgId, "lead_follow_up", event.payload.leadId.toLowerCase(), null);
    }),
  },
};
