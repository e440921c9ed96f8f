import { create } from "@bufbuild/protobuf";
import {
  blankToNull,
  invalidArgument,
  newEvent,
  phoneInput,
  referenceNotFound,
  invalidValue,
  type Emit,
  type OrgContext,
  type Queryable,
  type Violation,
} from "@voiceops/platform";
import { ContactCreatedSchema, ContactUpdatedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import type { ContactStore } from "../store/contacts.js";
import { toContact, type ContactRow } from "../store/rows.js";
import { crmErrors } from "../errors.js";

/** Who a lead or a booking is for: a known contact, or the fields to find or create one by. */
interface ContactReference {
  contactId?: string;
  name?: string;
  phoneNumber?: string;
  email?: string;
}

/** The contact fields of a request, and what is wrong with them (all of it). */
export function contactInput(
  org: OrgContext,
  req: ContactReference,
): { name: string | null; email: string | null; phone: string | null; violations: Violation[] } {
  const name = blankToNull(req.name);
  const email = blankToNull(req.email);
  const violations: Violation[] = [];
  const phone = phoneInput(req.phoneNumber, org.country, "phone_number", violations);
  if (req.contactId) return { name, email, phone: phone ?? null, violations: [] };
  if (phone === undefined) return { name, email, phone: null, violations };
  if (!name && !phone && !email) {
    violations.push(invalidValue("", "one of contact_id, name, phone_number or email is required", null));
  }
  return { name, email, phone, violations };
}

/**
 * The contact of a request: the given one, else the one with the phone, else with the email,
 * else a new one. `violations` are the request's other failures, reported together with a
 * missing contact_id; with none, the contact fields are known to be valid. This is how
 * POST /api/leads and every other upsert of a contact (a booking) find their contact.
 */
export async function upsertContact(
  tx: Queryable,
  contacts: ContactStore,
  org: OrgContext,
  req: ContactReference,
  emit: Emit,
  violations: Violation[],
): Promise<ContactRow> {
  if (req.contactId) {
    const contact = await contacts.get(tx, org.orgId, req.contactId);
    if (!contact) throw invalidArgument([referenceNotFound("contact_id", "contact", req.contactId), ...violations]);
    if (violations.length > 0) throw invalidArgument(violations);
    return contact;
  }
  if (violations.length > 0) throw invalidArgument(violations);
  const { name, email, phone } = contactInput(org, req);
  let contact =
    (phone ? await contacts.findByPhone(tx, org.orgId, phone) : undefined) ??
    (email ? await contacts.findByEmail(tx, org.orgId, email) : undefined);
  if (!contact) {
    contact =
      (await contacts.insert(tx, org.orgId, { name, phone_number: phone, email, status: "lead" })) ??
      (phone ? await contacts.findByPhone(tx, org.orgId, phone) : undefined);
    if (!contact) throw crmErrors.CONTACT_NOT_STORED();
    emit(
      newEvent(
        org.orgId,
        "crm.contact.created",
        ContactCreatedSchema,
        create(ContactCreatedSchema, { contact: toContact(contact) }),
      ),
    );
    return contact;
  }
  // Fill what the existing contact lacks; never overwrite what it has.
  const fill: Record<string, string> = {};
  if (!contact.name && name) fill.name = name;
  if (!contact.email && email) fill.email = email;
  if (!contact.phone_number && phone && !(await contacts.findByPhone(tx, org.orgId, phone))) fill.phone_number = phone;
  if (Object.keys(fill).length > 0) {
    contact = (await contacts.update(tx, org.orgId, contact.id, fill)) ?? contact;
    emit(
      newEvent(
        org.orgId,
        "crm.contact.updated",
        ContactUpdatedSchema,
        create(ContactUpdatedSchema, { contact: toContact(contact) }),
      ),
    );
  }
  return contact;
}

/** The internal UpsertContact RPC: other services' way to the same upsert. */
