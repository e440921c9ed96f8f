import { create } from "@bufbuild/protobuf";
import type { ConnectError, HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  columnValues,
  invalidArgument,
  newEvent,
  normalizePhone,
  orgOf,
  pgErrorCode,
  PgErrorCode,
  updatedFields,
  withDefaults,
  type Emit,
  type ServiceContext,
  notFound,
  invalidValue,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ContactCreatedSchema,
  ContactDeletedSchema,
  ContactUpdatedSchema,
  LeadDeletedSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import {
  ContactFieldsSchema,
  ContactSort,
  CreateContactRequestSchema,
  ListContactsRequestSchema,
  SearchContactsByEmailRequestSchema,
  SearchContactsRequestSchema,
  type BulkDeleteContactsRequest,
  type CreateContactRequest,
  type DeleteContactRequest,
  type FindContactByPhoneRequest,
  type GetContactRequest,
  type ListContactsRequest,
  type SearchContactsByEmailRequest,
  type SearchContactsRequest,
  type UpdateContactRequest,
  type CrmService,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { CONTACT_FIELDS, type ContactSort as SortName, type ContactValues } from "../store/contacts.js";
import { contactStatusText, toContact, type ContactRow } from "../store/rows.js";
import type { CrmStores } from "../store/index.js";
import { crmErrors } from "../errors.js";

const SORTS: Record<ContactSort, SortName> = {
  [ContactSort.UNSPECIFIED]: "name",
  [ContactSort.NAME]: "name",
  [ContactSort.NAME_DESC]: "name_desc",
  [ContactSort.NEWEST]: "newest",
};

function duplicatePhone(existing: ContactRow | undefined, phone: string): ConnectError {
  return crmErrors.CONTACT_PHONE_TAKEN(phone, existing?.id ?? "unknown");
}

export function contactHandlers(service: ServiceContext, stores: CrmStores) {
  const { db } = service;
  const store = stores.contacts;
  return {
    async listContacts(req: ListContactsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListContactsRequestSchema, req);
      const { prospects, sort } = withDefaults(ListContactsRequestSchema, req, "prospects", "sort");
      const listing = await store.list(db, org.orgId, {
        ...paging,
        status: req.status === undefined ? undefined : contactStatusText(req.status),
        prospects,
        search: req.search?.trim() || undefined,
        sort: SORTS[sort],
      });
      return pageAnswer(paging, listing, toContact);
    },

    async createContact(req: CreateContactRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const { values, violations } = columnValues<ContactValues>(CreateContactRequestSchema, req, CONTACT_FIELDS, {
        country: org.country,
      });
      if (!values.name && !values.phone_number && !violations.some((v) => v.field === "phone_number")) {
        violations.push(invalidValue("", "name or phone_number is required", null));
      }
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, values);
        if (!inserted) {
          const phone = String(values.phone_number);
          throw duplicatePhone(await store.findByPhone(tx, org.orgId, phone), phone);
        }
        emit(
          newEvent(
            org.orgId,
            "crm.contact.created",
            ContactCreatedSchema,
            create(ContactCreatedSchema, { contact: toContact(inserted) }),
          ),
        );
        return inserted;
      });
      return { contact: toContact(row) };
    },

    async searchContacts(req: SearchContactsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const q = req.q.trim();
      if (q === "") return { contacts: [] };
      const { limit } = withDefaults(SearchContactsRequestSchema, req, "limit");
      const rows = await store.search(db, org.orgId, q, normalizePhone(q, org.country), limit);
      return { contacts: rows.map(toContact) };
    },

    async searchContactsByEmail(req: SearchContactsByEmailRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const text = req.email.trim();
      // A blank text (e.g. "   ", which passes the length rule) would match every email.
      if (text === "") return { contacts: [] };
      const { limit } = withDefaults(SearchContactsByEmailRequestSchema, req, "limit");
      const rows = await store.searchByEmail(db, org.orgId, text, limit);
      return { contacts: rows.map(toContact) };
    },

    async findContactByPhone(req: FindContactByPhoneRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const phone = normalizePhone(req.phoneNumber, org.country);
      const row = phone === undefined ? undefined : await store.findByPhone(db, org.orgId, phone);
      return { contact: row && toContact(row) };
    },

    async getContact(req: GetContactRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.contactId);
      if (!row) throw notFound("Contact");
      return { contact: toContact(row) };
    },

    async updateContact(req: UpdateContactRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(ContactFieldsSchema, req.contact, req.updateMask, CONTACT_FIELDS);
      const { values, violations } = columnValues<ContactValues>(
        ContactFieldsSchema,
        req.contact ?? create(ContactFieldsSchema),
        fields,
        {
          prefix: "contact.",
          country: org.country,
        },
      );
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx, emit) => {
        // The contact must exist in the caller's org before anything else is judged: an unknown
        // id (or another org's) is a 404 even when the new phone number is taken here.
        const existing = await store.get(tx, org.orgId, req.contactId);
        if (!existing) throw notFound("Contact");
        if (fields.length === 0) return existing;
        const phone = typeof values.phone_number === "string" ? values.phone_number : undefined;
        if (phone) {
          const holder = await store.findByPhone(tx, org.orgId, phone);
          // Compare stored ids: the path id may be spelled in upper case.
          if (holder && holder.id !== existing.id) throw duplicatePhone(holder, phone);
        }
        let updated: ContactRow | undefined;
        try {
          updated = await store.update(tx, org.orgId, existing.id, values);
        } catch (error) {
          // A concurrent writer took the number between our check and our update.
          if (phone && pgErrorCode(error) === PgErrorCode.uniqueViolation) throw duplicatePhone(undefined, phone);
          throw error;
        }
        if (!updated) throw notFound("Contact");
        if (!updated.name && !updated.phone_number) {
          throw invalidArgument([invalidValue("contact", "a contact needs a name or a phone_number", null)]);
        }
        emit(
          newEvent(
            org.orgId,
            "crm.contact.updated",
            ContactUpdatedSchema,
            create(ContactUpdatedSchema, { contact: toContact(updated) }),
          ),
        );
        return updated;
      });
      return { contact: toContact(row) };
    },

    async deleteContact(req: DeleteContactRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const deleted = await store.delete(tx, org.orgId, [req.contactId]);
        if (deleted.contactIds.length === 0) throw notFound("Contact");
        emitDeletions(org.orgId, deleted, emit);
      });
      return {};
    },

    async bulkDeleteContacts(req: BulkDeleteContactsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const deleted = await service.write(ctx, async (tx, emit) => {
        const result = await store.delete(tx, org.orgId, [...new Set(req.ids.map((id) => id.toLowerCase()))]);
        emitDeletions(org.orgId, result, emit);
        return result.contactIds.length;
      });
      return { deleted };
    },
  } satisfies Partial<ServiceImpl<typeof CrmService>>;

  function emitDeletions(
    orgId: string,
    deleted: { contactIds: string[]; leads: { id: string; contact_id: string }[] },
    emit: Emit,
  ): void {
    for (const lead of deleted.leads) {
      emit(
        newEvent(
          orgId,
          "crm.lead.deleted",
          LeadDeletedSchema,
          create(LeadDeletedSchema, { leadId: lead.id, contactId: lead.contact_id }),
        ),
      );
    }
    for (const contactId of deleted.contactIds) {
      emit(newEvent(orgId, "crm.contact.deleted", ContactDeletedSchema, create(ContactDeletedSchema, { contactId })));
    }
  }
}
