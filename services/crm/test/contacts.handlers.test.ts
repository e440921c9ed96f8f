import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { violationsOf } from "@voiceops/platform";
import { handlerTestbed, type HandlerTestbed } from "@voiceops/platform/testing";
import { ContactStatus, CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { crmService } from "../src/index.js";

// The fast level: the CRM's handlers and their interceptors over an in-memory transport, on an
// in-memory PGlite. The HTTP suites (contacts.http.test.ts) cover the same routes end to end.

async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call succeeded");
}

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
    const created = () => bed.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM crm.outbox WHERE subject = 'crm.contact.created'`).then((r) => r.rows[0]?.n ?? 0);
    const before = await created();
    await crm.createContact({ name: "Bo" });
    expect(await created()).toBe(before + 1);
  });

  it("does not find another organization's contact", async () => {
    const { contact } = await bed.client(CrmService, { orgId }).createContact({ name: "Private" });
    const error = await failure(bed.client(CrmService).getContact({ contactId: contact?.id ?? "" }));
    expect(error.code).toBe(Code.NotFound);
    expect(error.rawMessage).toBe("Contact not found");
  });

  it("reports every failing field as a structured violation, and writes nothing", async () => {
    const crm = bed.client(CrmService, { orgId: randomUUID() });
    const error = await failure(crm.createContact({ name: "x".repeat(201), email: "not-an-email" }));
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
});
