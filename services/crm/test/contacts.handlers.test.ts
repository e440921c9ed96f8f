import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { violationsOf } from "@voiceops/platform";
import { failureOf, handlerTestbed, type HandlerTestbed } from "@voiceops/platform/testing";
import { ContactStatus, CrmService, LeadStatus } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { crmService } from "../src/index.js";

// The fast level: the CRM's handlers and their interceptors over an in-memory transport, on an
// in-memory PGlite. The HTTP suites (contacts.http.test.ts) cover the same routes end to end.

describe("CRM contact handlers", () => {
  let bed: HandlerTestbed;
  const orgId = randomUUID();

  beforeAll(async () => {
    bed = await handlerTestbed(crmService);
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("creates a contact with its defaults and the phone in E.164, and reads it back", async () => {
    const crm = bed.client(CrmService, { orgId, country: "US" });
    const { contact } = await crm.createContact({ name: "Ada", phoneNumber: "(555) 010-2000" });
    expect(contact).toMatchObject({ name: "Ada", phoneNumber: "+15550102000", status: ContactStatus.LEAD, tags: [] });
    const read = await crm.getContact({ contactId: contact?.id ?? "" });
    expect(read.contact?.id).toBe(contact?.id);
  });

  it("writes the contact's event to the outbox in the same transaction", async () => {
    const crm = bed.client(CrmService, { orgId });
    const created = () =>
      bed.db
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM crm.outbox WHERE subject = 'crm.contact.created'`)
        .then((r) => r.rows[0]?.n ?? 0);
    const before = await created();
    await crm.createContact({ name: "Bo" });
    expect(await created()).toBe(before + 1);
  });

  it("finds the contact holding exactly a number, in any formatting, and nobody's for a partial or another organization's number", async () => {
    const mine = randomUUID();
    const crm = bed.client(CrmService, { orgId: mine, country: "US" });
    const { contact } = await crm.createContact({ name: "Caller", phoneNumber: "+15550109876" });
    await crm.createContact({ name: "Neighbour", phoneNumber: "+15550109877" });
    expect((await crm.findContactByPhone({ phoneNumber: "(555) 010-9876" })).contact?.id).toBe(contact?.id);
    expect((await crm.findContactByPhone({ phoneNumber: "+15550109870" })).contact).toBeUndefined();
    const other = bed.client(CrmService, { orgId: randomUUID(), country: "US" });
    expect((await other.findContactByPhone({ phoneNumber: "+15550109876" })).contact).toBeUndefined();
    const error = await failureOf(crm.findContactByPhone({ phoneNumber: "not a number" }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(violationsOf(error).map((v) => v.field)).toEqual(["phone_number"]);
  });

  it("does not find another organization's contact", async () => {
    const { contact } = await bed.client(CrmService, { orgId }).createContact({ name: "Private" });
    const error = await failureOf(bed.client(CrmService).getContact({ contactId: contact?.id ?? "" }));
    expect(error.code).toBe(Code.NotFound);
    expect(error.rawMessage).toBe("Contact not found");
  });

  it("reports every failing field as a structured violation, and writes nothing", async () => {
    const crm = bed.client(CrmService, { orgId: randomUUID() });
    const error = await failureOf(crm.createContact({ name: "x".repeat(201), email: "not-an-email" }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(
      violationsOf(error)
        .map((v) => [v.field, v.rule, v.context])
        .sort(),
    ).toEqual([
      ["email", "format", { format: "email" }],
      ["name", "max_length", { max_length: 200 }],
    ]);
    expect(violationsOf(error).every((v) => !/Value error|should|Field required/.test(v.message))).toBe(true);
    const list = await crm.listContacts({});
    expect(list.total).toBe(0);
  });

  it("gives a direct caller the declared defaults of lists and searches, and keeps explicit values", async () => {
    const crm = bed.client(CrmService, { orgId: randomUUID() });
    await crm.createContact({ name: "Zed" });
    await crm.createContact({ name: "Amy", status: ContactStatus.CUSTOMER });
    const list = await crm.listContacts({});
    expect(list).toMatchObject({ page: 1, pageSize: 50, total: 2 });
    expect(list.items.map((c) => [c.name, c.status])).toEqual([
      ["Amy", ContactStatus.CUSTOMER],
      ["Zed", ContactStatus.LEAD],
    ]);
    expect((await crm.listContacts({ pageSize: 1, page: 2 })).items.map((c) => c.name)).toEqual(["Zed"]);
    expect((await crm.searchContacts({ q: "a" })).contacts.length).toBe(1);
  });

  it("changes only what a contact update names: a status named without a value is kept, other fields are cleared", async () => {
    const crm = bed.client(CrmService, { orgId: randomUUID(), country: "GB" });
    const { contact } = await crm.createContact({
      name: "Ivy",
      companyName: "Acme",
      status: ContactStatus.CUSTOMER,
      tags: ["vip", " vip "],
    });
    expect(contact?.tags).toEqual(["vip"]);
    const updated = await crm.updateContact({
      contactId: contact?.id ?? "",
      contact: { phoneNumber: "020 7946 0018" },
      updateMask: { paths: ["phone_number", "status", "company_name"] },
    });
    expect(updated.contact).toMatchObject({
      name: "Ivy",
      phoneNumber: "+442079460018",
      status: ContactStatus.CUSTOMER,
      tags: ["vip"],
    });
    expect(updated.contact?.companyName).toBeUndefined();
  });

  it("opens a lead with the declared default status, and lists leads with the declared page size", async () => {
    const crm = bed.client(CrmService, { orgId: randomUUID() });
    const { lead } = await crm.createLead({ name: "Olu", estimatedValueCents: 50_000n, source: "  web  " });
    expect(lead).toMatchObject({ status: LeadStatus.NEW, estimatedValueCents: 50_000n, source: "web" });
    const won = await crm.createLead({ name: "Pia", status: LeadStatus.WON });
    expect(won.lead?.status).toBe(LeadStatus.WON);
    expect(await crm.listLeads({})).toMatchObject({ page: 1, pageSize: 50, total: 2 });
  });
});
