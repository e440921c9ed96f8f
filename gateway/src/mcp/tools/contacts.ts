import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { normalizePhone } from "@voiceops/platform";
import {
  ContactFieldsSchema,
  ContactSchema,
  CreateContactRequestSchema,
  CreateLeadRequestSchema,
  CrmService,
  LeadSchema,
  SearchContactsRequestSchema,
  SearchContactsResponseSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import type { ToolContext } from "../context.js";
import { present, ToolFailure } from "../errors.js";
import { param } from "../schemas.js";
import { defineTool } from "../tool.js";

export const searchContacts = defineTool({
  name: "search_contacts",
  title: "Search contacts",
  description:
    "Finds contacts by phone number (any formatting) or by name (part of it, ignoring case), best matches first: the exact number, then names starting with the query. Use it when the caller gives a name or another number; for the caller's own number use lookup_caller.",
  kind: "read",
  params: [
    param(SearchContactsRequestSchema, "q", {
      as: "query",
      description: "A phone number (any formatting) or a name, or part of one.",
    }),
    param(SearchContactsRequestSchema, "limit"),
  ],
  output: SearchContactsResponseSchema,
  // The decoded request goes as it is, as the REST route sends it.
  run: (ctx, args) =>
    ctx.call(
      CrmService.method.searchContacts,
      args.of(SearchContactsRequestSchema) as MessageInitShape<typeof SearchContactsRequestSchema>,
    ),
});

const SAVED_FIELDS = ["name", "email", "address", "notes"] as const;

/** The contact whose number is exactly `phone` (E.164), if any. */
async function contactByPhone(ctx: ToolContext, phone: string) {
  const { contacts } = await ctx.call(CrmService.method.searchContacts, { q: phone, limit: 1 });
  return contacts.find((c) => c.phoneNumber === phone);
}

export const saveContact = defineTool({
  name: "save_contact",
  title: "Save a contact",
  description:
    "Creates the contact with this phone number, or updates it when one exists (upsert by phone): only the fields given change. Use it to store the caller's name, email, address or notes as they give them.",
  kind: "write",
  idempotent: true,
  params: [
    param(CreateContactRequestSchema, "phone_number", { required: true }),
    ...SAVED_FIELDS.map((name) => param(CreateContactRequestSchema, name)),
  ],
  output: ContactSchema,
  async run(ctx, args) {
    const input = args.of(CreateContactRequestSchema);
    const phone = normalizePhone(String(input.phoneNumber), ctx.principal.country) ?? String(input.phoneNumber);
    const given = SAVED_FIELDS.filter((name) => args.has(name));
    const update = async (id: string) => {
      const fields = create(ContactFieldsSchema, Object.fromEntries(given.map((name) => [name, input[name]])));
      const { contact } = await ctx.call(CrmService.method.updateContact, {
        contactId: id,
        contact: fields,
        updateMask: create(FieldMaskSchema, { paths: given }),
      });
      return contact;
    };
    // Created first, updated when the number is taken: one order of calls whatever the data,
    // so a retry under an idempotency key makes the same calls and finds their answers.
    try {
      const { contact } = await ctx.call(CrmService.method.createContact, {
        phoneNumber: phone,
        ...Object.fromEntries(given.map((name) => [name, input[name]])),
      });
      return present(contact);
    } catch (error) {
      if (!(error instanceof ToolFailure) || error.status !== 409) throw error;
      const existing = await contactByPhone(ctx, phone);
      if (!existing) throw error;
      return given.length > 0 ? ((await update(existing.id)) ?? existing) : existing;
    }
  },
});

const LEAD_FIELDS = [
  "name",
  "phone_number",
  "email",
  "contact_id",
  "source",
  "notes",
  "estimated_value_cents",
  "next_step",
  "next_step_due_at",
] as const;

export const createLead = defineTool({
  name: "create_lead",
  title: "Create a lead",
  description:
    "Records a sales opportunity: someone interested in a service who has not booked or asked for work yet (a quote request, a callback about pricing). The contact is found by contact_id, else by phone number, else by email, else created; give what the caller said in notes and next_step.",
  kind: "write",
  params: LEAD_FIELDS.map((name) => param(CreateLeadRequestSchema, name)),
  output: LeadSchema,
  async run(ctx, args) {
    const request = args.of(CreateLeadRequestSchema) as MessageInitShape<typeof CreateLeadRequestSchema>;
    return present((await ctx.call(CrmService.method.createLead, request)).lead);
  },
});
