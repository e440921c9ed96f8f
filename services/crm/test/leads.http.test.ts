import { DateTime } from "luxon";
import { beforeAll, describe, expect, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  tenantFactory,
  UNKNOWN_ID,
  unknownKeyClient,
  type ApiClient,
  type Tenant,
} from "@voiceops/platform/testing";

// HTTP tests of the CRM leads routes, through the gateway. Every test (or describe) works in its
// own fresh organization, so counts are exact even though the database outlives the run.

const tenant = tenantFactory({ timezone: "America/Chicago" });

const LEAD_KEYS = [
  "contact",
  "contact_id",
  "created_at",
  "customer_id",
  "estimated_value_cents",
  "id",
  "lost_at",
  "lost_reason",
  "next_step",
  "next_step_due_at",
  "notes",
  "source",
  "status",
  "updated_at",
  "won_at",
];
const STATUSES = ["new", "contacted", "qualified", "proposal", "won", "lost"];

interface Lead {
  id: string;
  contact_id: string;
  contact: { id: string; name: string | null; phone_number: string | null; email: string | null };
  status: string;
  source: string | null;
  notes: string | null;
  estimated_value_cents: number | null;
  next_step: string | null;
  next_step_due_at: string | null;
  lost_reason: string | null;
  won_at: string | null;
  lost_at: string | null;
  customer_id: string | null;
  created_at: string;
  updated_at: string;
}

interface Contact {
  id: string;
  name: string | null;
  phone_number: string | null;
  email: string | null;
  status: string;
}

async function createLead(client: ApiClient, body: Record<string, unknown>): Promise<Lead> {
  return expectStatus(await client.post<Lead>("/api/leads", body), 201);
}

async function createContact(client: ApiClient, body: Record<string, unknown>): Promise<Contact> {
  return expectStatus(await client.post<Contact>("/api/contacts", body), 201);
}

async function getContact(client: ApiClient, id: string): Promise<Contact> {
  const res = await client.get<Contact>(`/api/contacts/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function counts(client: ApiClient): Promise<{ contacts: number; leads: number }> {
  const [contacts, prospects, leads] = await Promise.all([
    client.get("/api/contacts"),
    client.get("/api/contacts?prospects=true"),
    client.get("/api/leads"),
  ]);
  return { contacts: contacts.body.total + prospects.body.total, leads: leads.body.total };
}

const sorted = (values: string[]) => [...values].sort();

describe("authentication", () => {
  it.each([
    ["GET", "/api/leads"],
    ["POST", "/api/leads"],
    ["GET", "/api/leads/pipeline"],
    ["GET", `/api/leads/${UNKNOWN_ID}`],
    ["PUT", `/api/leads/${UNKNOWN_ID}`],
    ["DELETE", `/api/leads/${UNKNOWN_ID}`],
  ])("%s %s is 401 without a key and with an unknown key", async (method, path) => {
    await expect401(anonymousClient(), method, path, { name: "x" });
    await expect401(unknownKeyClient(), method, path, { name: "x" });
  });

  it("ignores X-Organization-Id", async () => {
    const t = await tenant();
    const other = await tenant();
    await createLead(other.owner, { name: "Foreign" });
    const mine = await createLead(t.owner, { name: "Mine" });
    const res = await t.owner.get("/api/leads", { "X-Organization-Id": other.orgId });
    expect(idsOf(res.body.items)).toEqual([mine.id]);
  });
});

describe("POST /api/leads", () => {
  it("creates a lead and a new contact, answering 201 with the full lead", async () => {
    const t = await tenant();
    const due = "2030-05-01T15:30:00.000Z";
    const res = await t.owner.post<Lead>("/api/leads", {
      name: "Lena Lead",
      phone_number: "(555) 010-2000",
      email: "lena@example.com",
      source: "phone call",
      notes: "Leaking water heater",
      estimated_value_cents: 125_000,
      next_step: "Call back with a quote",
      next_step_due_at: due,
    });
    expect(res.status).toBe(201);
    const lead = res.body;
    expect(Object.keys(lead).sort()).toEqual(LEAD_KEYS);
    expect(lead).toMatchObject({
      status: "new",
      source: "phone call",
      notes: "Leaking water heater",
      estimated_value_cents: 125_000,
      next_step: "Call back with a quote",
      next_step_due_at: due,
      lost_reason: null,
      won_at: null,
      lost_at: null,
      customer_id: null,
    });
    expect(lead.contact).toEqual({
      id: lead.contact_id,
      name: "Lena Lead",
      phone_number: "+15550102000",
      email: "lena@example.com",
    });
    expectRecent(lead.created_at);
    expectRecent(lead.updated_at);

    const contact = await getContact(t.owner, lead.contact_id);
    expect(contact).toMatchObject({
      id: lead.contact_id,
      name: "Lena Lead",
      phone_number: "+15550102000",
      email: "lena@example.com",
      status: "lead",
    });
    expect((await t.owner.get(`/api/leads/${lead.id}`)).body).toEqual(lead);
  });

  it("shows unset fields as null and keeps int64 cents exact", async () => {
    const t = await tenant();
    const bare = await createLead(t.owner, { phone_number: "555-010-2001" });
    expect(bare).toMatchObject({
      status: "new",
      source: null,
      notes: null,
      estimated_value_cents: null,
      next_step: null,
      next_step_due_at: null,
    });
    expect(bare.contact).toEqual({ id: bare.contact_id, name: null, phone_number: "+15550102001", email: null });
    const big = await createLead(t.owner, { name: "Big", estimated_value_cents: 12_345_678_901 });
    expect(big.estimated_value_cents).toBe(12_345_678_901);
  });

  it("answers next_step_due_at in UTC whatever offset it was given in", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, { name: "Offset", next_step_due_at: "2030-01-01T10:00:00+02:00" });
    expect(lead.next_step_due_at).toBe("2030-01-01T08:00:00.000Z");
  });

  it("links the contact given by contact_id", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, {
      name: "Known",
      phone_number: "555-010-2100",
      email: "known@example.com",
      status: "customer",
    });
    const lead = await createLead(t.owner, { contact_id: contact.id, status: "qualified" });
    expect(lead.contact_id).toBe(contact.id);
    expect(lead.contact).toEqual({
      id: contact.id,
      name: "Known",
      phone_number: "+15550102100",
      email: "known@example.com",
    });
    expect(lead.status).toBe("qualified");
    expect((await counts(t.owner)).contacts).toBe(1);
  });

  it("upserts by normalized phone number", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Phone Match", phone_number: "+15550102200" });
    const lead = await createLead(t.owner, { name: "Someone", phone_number: "(555) 010-2200" });
    expect(lead.contact_id).toBe(contact.id);
    const second = await createLead(t.owner, { phone_number: "555.010.2200" });
    expect(second.contact_id).toBe(contact.id);
    expect(await counts(t.owner)).toEqual({ contacts: 1, leads: 2 });
  });

  it("upserts by email, case-insensitively, when no phone matches", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Jane", email: "Jane.Doe@Example.com" });
    const lead = await createLead(t.owner, { name: "Jane D", email: "jane.doe@EXAMPLE.COM" });
    expect(lead.contact_id).toBe(contact.id);
    const withPhone = await createLead(t.owner, { email: "JANE.DOE@example.com", phone_number: "555-010-2300" });
    expect(withPhone.contact_id).toBe(contact.id);
    expect((await counts(t.owner)).contacts).toBe(1);
  });

  it("prefers the phone match over the email match", async () => {
    const t = await tenant();
    const byPhone = await createContact(t.owner, { name: "By Phone", phone_number: "555-010-2400" });
    await createContact(t.owner, { name: "By Email", email: "both@example.com" });
    const lead = await createLead(t.owner, { phone_number: "5550102400", email: "both@example.com" });
    expect(lead.contact_id).toBe(byPhone.id);
    expect((await counts(t.owner)).contacts).toBe(2);
  });

  it("creates a new contact (status lead) when nothing matches, even if another org has the number", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createContact(other.owner, {
      name: "Foreign",
      phone_number: "555-010-2500",
      email: "shared@example.com",
    });
    await createContact(t.owner, { name: "Unrelated", phone_number: "555-010-2501" });
    const lead = await createLead(t.owner, {
      name: "Newcomer",
      phone_number: "555-010-2500",
      email: "shared@example.com",
    });
    expect(lead.contact_id).not.toBe(foreign.id);
    expect(await getContact(t.owner, lead.contact_id)).toMatchObject({
      name: "Newcomer",
      phone_number: "+15550102500",
      status: "lead",
    });
    expect((await counts(t.owner)).contacts).toBe(2);
    expect(await getContact(other.owner, foreign.id)).toMatchObject({ name: "Foreign" });
  });

  it("creates one contact per lead for name-only leads", async () => {
    const t = await tenant();
    const first = await createLead(t.owner, { name: "Walk-in" });
    const second = await createLead(t.owner, { email: "walkin@example.com" });
    expect(first.contact_id).not.toBe(second.contact_id);
    expect(await counts(t.owner)).toEqual({ contacts: 2, leads: 2 });
  });

  it("stamps won_at and makes the contact a customer when created as won", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Buyer", phone_number: "555-010-2600", status: "prospect" });
    const lead = await createLead(t.owner, { phone_number: "555-010-2600", status: "won" });
    expect(lead.contact_id).toBe(contact.id);
    expect(lead.status).toBe("won");
    expectRecent(lead.won_at);
    expect(lead.customer_id).toBe(contact.id);
    expect(lead.lost_at).toBeNull();
    expect((await getContact(t.owner, contact.id)).status).toBe("customer");
  });

  it("stamps lost_at when created as lost with a reason", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, { name: "Gone", status: "lost", lost_reason: "Chose a competitor" });
    expect(lead).toMatchObject({ status: "lost", lost_reason: "Chose a competitor", won_at: null, customer_id: null });
    expectRecent(lead.lost_at);
  });

  it.each([
    ["no lost_reason", {}],
    ["a null lost_reason", { lost_reason: null }],
    ["a blank lost_reason", { lost_reason: "   " }],
  ])(
    "answers 422 at body.lost_reason for status lost with %s, and creates neither lead nor contact",
    async (_label, extra) => {
      const t = await tenant();
      expect422(
        await t.owner.post("/api/leads", {
          name: "Half",
          phone_number: "555-010-2700",
          email: "half@example.com",
          status: "lost",
          ...extra,
        }),
        [{ loc: ["body", "lost_reason"], type: "value_error" }],
      );
      expect(await counts(t.owner)).toEqual({ contacts: 0, leads: 0 });
    },
  );

  it("does not touch an existing contact when the lead is rejected", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { phone_number: "555-010-2750" });
    expect422(await t.owner.post("/api/leads", { name: "Would Fill", phone_number: "555-010-2750", status: "lost" }), [
      { loc: ["body", "lost_reason"] },
    ]);
    expect((await getContact(t.owner, contact.id)).name).toBeNull();
    expect((await counts(t.owner)).leads).toBe(0);
  });

  it("answers 422 at body.contact_id for an unknown or foreign contact, and for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createContact(other.owner, { name: "Foreign" });
    expect422(await t.owner.post("/api/leads", { contact_id: UNKNOWN_ID }), [
      { loc: ["body", "contact_id"], type: "value_error" },
    ]);
    expect422(await t.owner.post("/api/leads", { contact_id: foreign.id, name: "Steal" }), [
      { loc: ["body", "contact_id"], type: "value_error" },
    ]);
    expect422(await t.owner.post("/api/leads", { contact_id: "not-a-uuid" }), [
      { loc: ["body", "contact_id"], type: "uuid_parsing" },
    ]);
    expect(await counts(t.owner)).toEqual({ contacts: 0, leads: 0 });
    expect((await other.owner.get("/api/leads")).body.total).toBe(0);
  });

  it("needs a contact_id, name, phone number or email: 422 at body otherwise", async () => {
    const t = await tenant();
    expect422(await t.owner.post("/api/leads", {}), [{ loc: ["body"], type: "value_error" }]);
    expect422(await t.owner.post("/api/leads", { name: "  ", notes: "who?" }), [
      { loc: ["body"], type: "value_error" },
    ]);
    expect(await counts(t.owner)).toEqual({ contacts: 0, leads: 0 });
  });

  it("answers 422 at body.phone_number for an invalid phone number, and creates nothing", async () => {
    const t = await tenant();
    expect422(await t.owner.post("/api/leads", { name: "Bad Phone", phone_number: "call me" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
    ]);
    expect(await counts(t.owner)).toEqual({ contacts: 0, leads: 0 });
  });

  it("reports every failing field at once", async () => {
    const t = await tenant();
    expect422(
      await t.owner.post("/api/leads", {
        name: "x",
        estimated_value_cents: -1,
        status: "maybe",
        next_step_due_at: "tomorrow",
        source: "s".repeat(101),
        notes: 5,
      }),
      [
        { loc: ["body", "status"], type: "enum" },
        { loc: ["body", "source"], type: "string_too_long" },
        { loc: ["body", "notes"], type: "string_type" },
        { loc: ["body", "estimated_value_cents"], type: "greater_than_equal" },
        { loc: ["body", "next_step_due_at"] },
      ],
    );
    // A malformed field is reported with the others; rules across fields (a lost lead needs a
    // reason) are checked once the fields are valid, as pydantic runs model validators.
    expect422(await t.owner.post("/api/leads", { phone_number: "abc", email: "bad", status: "lost" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
      { loc: ["body", "email"], type: "value_error" },
    ]);
    // Rules checked by the service are reported together.
    expect422(await t.owner.post("/api/leads", { contact_id: UNKNOWN_ID, status: "lost" }), [
      { loc: ["body", "contact_id"], type: "value_error" },
      { loc: ["body", "lost_reason"], type: "value_error" },
    ]);
    expect(await counts(t.owner)).toEqual({ contacts: 0, leads: 0 });
  });

  it.each([
    ["abc", "int_parsing"],
    [1.5, "int_from_float"],
    [-5, "greater_than_equal"],
  ])("rejects estimated_value_cents %j with %s", async (value, type) => {
    const t = await tenant();
    expect422(await t.owner.post("/api/leads", { name: "Cents", estimated_value_cents: value }), [
      { loc: ["body", "estimated_value_cents"], type },
    ]);
  });

  it("answers 422 json_invalid for a malformed body, and 422 for no body", async () => {
    const t = await tenant();
    expect422(await t.owner.request("POST", "/api/leads", { rawBody: "{'name': 'single quotes'}" }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.request("POST", "/api/leads"), [{ loc: ["body"] }]);
    expect(await counts(t.owner)).toEqual({ contacts: 0, leads: 0 });
  });
});

describe("GET /api/leads/{lead_id}", () => {
  it("reads a lead, with its contact as it is now", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, { name: "Reader", email: "reader@example.com" });
    const res = await t.member.get(`/api/leads/${lead.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(lead);
    expect((await t.owner.get(`/api/leads/${lead.id.toUpperCase()}`)).body).toEqual(lead);
    expect((await t.owner.put(`/api/contacts/${lead.contact_id}`, { name: "Renamed Reader" })).status).toBe(200);
    expect((await t.owner.get(`/api/leads/${lead.id}`)).body.contact).toEqual({
      ...lead.contact,
      name: "Renamed Reader",
    });
  });

  it("answers 404 for an unknown id and for another organization's lead", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createLead(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.get(`/api/leads/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.get(`/api/leads/${foreign.id}`), 404);
  });

  it("answers 422 at path.lead_id for a malformed id", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/leads/abc"), [{ loc: ["path", "lead_id"], type: "uuid_parsing" }]);
  });
});

describe("PUT /api/leads/{lead_id}", () => {
  const fields = {
    name: "Updatable",
    phone_number: "555-010-3000",
    source: "web",
    notes: "first",
    estimated_value_cents: 5_000,
    next_step: "Send quote",
    next_step_due_at: "2030-01-02T03:04:05.000Z",
  };

  it("changes only the given fields and answers the whole lead", async () => {
    const t = await tenant();
    const before = await createLead(t.owner, fields);
    const res = await t.member.put<Lead>(`/api/leads/${before.id}`, {
      notes: "second",
      status: "contacted",
      estimated_value_cents: 7_500,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(LEAD_KEYS);
    expect(res.body).toEqual({
      ...before,
      notes: "second",
      status: "contacted",
      estimated_value_cents: 7_500,
      updated_at: res.body.updated_at,
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await t.owner.get(`/api/leads/${before.id}`)).body).toEqual(res.body);
  });

  it("clears optional fields given as null", async () => {
    const t = await tenant();
    const before = await createLead(t.owner, fields);
    const res = await t.owner.put(`/api/leads/${before.id}`, {
      next_step_due_at: null,
      estimated_value_cents: null,
      source: null,
      next_step: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      next_step_due_at: null,
      estimated_value_cents: null,
      source: null,
      next_step: null,
      notes: "first",
      status: "new",
    });
  });

  it("keeps everything for an empty body", async () => {
    const t = await tenant();
    const before = await createLead(t.owner, fields);
    const res = await t.owner.put(`/api/leads/${before.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
  });

  it("answers 422 for status null, a bad status or bad values, and changes nothing", async () => {
    const t = await tenant();
    const before = await createLead(t.owner, fields);
    expect422(await t.owner.put(`/api/leads/${before.id}`, { status: null }), [{ loc: ["body", "status"] }]);
    expect422(await t.owner.put(`/api/leads/${before.id}`, { status: "closed", notes: "ignored" }), [
      { loc: ["body", "status"], type: "enum" },
    ]);
    expect422(
      await t.owner.put(`/api/leads/${before.id}`, {
        estimated_value_cents: -1,
        next_step_due_at: "soon",
        next_step: "n".repeat(501),
      }),
      [
        { loc: ["body", "estimated_value_cents"], type: "greater_than_equal" },
        { loc: ["body", "next_step_due_at"] },
        { loc: ["body", "next_step"], type: "string_too_long" },
      ],
    );
    expect((await t.owner.get(`/api/leads/${before.id}`)).body).toEqual(before);
  });

  it("requires a lost_reason to move to lost, then stamps lost_at", async () => {
    const t = await tenant();
    const before = await createLead(t.owner, fields);
    expect422(await t.owner.put(`/api/leads/${before.id}`, { status: "lost", notes: "ignored" }), [
      { loc: ["body", "lost_reason"], type: "value_error" },
    ]);
    expect((await t.owner.get(`/api/leads/${before.id}`)).body).toEqual(before);

    const lost = await t.owner.put<Lead>(`/api/leads/${before.id}`, { status: "lost", lost_reason: "Too expensive" });
    expect(lost.status).toBe(200);
    expect(lost.body).toMatchObject({ status: "lost", lost_reason: "Too expensive", won_at: null });
    expectRecent(lost.body.lost_at);

    // Staying lost keeps the stamp; removing the reason of a lost lead is refused.
    const edited = await t.owner.put<Lead>(`/api/leads/${before.id}`, { notes: "still lost" });
    expect(edited.body).toMatchObject({ status: "lost", lost_at: lost.body.lost_at, lost_reason: "Too expensive" });
    expect422(await t.owner.put(`/api/leads/${before.id}`, { lost_reason: null }), [
      { loc: ["body", "lost_reason"], type: "value_error" },
    ]);
    expect((await t.owner.get(`/api/leads/${before.id}`)).body.lost_reason).toBe("Too expensive");
  });

  it("clears lost_at when the lead leaves lost", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, { ...fields, status: "lost", lost_reason: "No budget" });
    const reopened = await t.owner.put<Lead>(`/api/leads/${lead.id}`, { status: "contacted" });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ status: "contacted", lost_at: null, won_at: null });
  });

  it("on won stamps won_at, names the customer and makes the contact a customer; leaving won clears won_at", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, fields);
    expect((await getContact(t.owner, lead.contact_id)).status).toBe("lead");

    const won = await t.owner.put<Lead>(`/api/leads/${lead.id}`, { status: "won" });
    expect(won.status).toBe(200);
    expect(won.body).toMatchObject({ status: "won", customer_id: lead.contact_id, lost_at: null });
    expectRecent(won.body.won_at);
    expect((await getContact(t.owner, lead.contact_id)).status).toBe("customer");

    const again = await t.owner.put<Lead>(`/api/leads/${lead.id}`, { status: "won", notes: "signed" });
    expect(again.body.won_at).toBe(won.body.won_at);

    const back = await t.owner.put<Lead>(`/api/leads/${lead.id}`, { status: "proposal" });
    expect(back.body).toMatchObject({ status: "proposal", won_at: null });
  });

  it("moving from won to lost swaps the stamps", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, { ...fields, status: "won" });
    const lost = await t.owner.put<Lead>(`/api/leads/${lead.id}`, { status: "lost", lost_reason: "Cancelled" });
    expect(lost.body).toMatchObject({ status: "lost", won_at: null, lost_reason: "Cancelled" });
    expectRecent(lost.body.lost_at);
    const won = await t.owner.put<Lead>(`/api/leads/${lead.id}`, { status: "won" });
    expect(won.body).toMatchObject({ status: "won", lost_at: null });
    expectRecent(won.body.won_at);
  });

  it("answers 404 for an unknown id and another organization's lead, which stays unchanged", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createLead(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.put(`/api/leads/${UNKNOWN_ID}`, { notes: "x" }), 404);
    expectDetail(await t.owner.put(`/api/leads/${foreign.id}`, { notes: "hijack", status: "won" }), 404);
    expectDetail(await t.owner.put(`/api/leads/${foreign.id}`, {}), 404);
    expect((await other.owner.get(`/api/leads/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 for a malformed id, a malformed body, a non-object body or no body", async () => {
    const t = await tenant();
    const before = await createLead(t.owner, fields);
    expect422(await t.owner.put("/api/leads/123", { notes: "x" }), [
      { loc: ["path", "lead_id"], type: "uuid_parsing" },
    ]);
    expect422(await t.owner.request("PUT", `/api/leads/${before.id}`, { rawBody: '{"notes": }' }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.put(`/api/leads/${before.id}`, ["notes"]), [{ loc: ["body"] }]);
    expect422(await t.owner.request("PUT", `/api/leads/${before.id}`), [{ loc: ["body"] }]);
    expect((await t.owner.get(`/api/leads/${before.id}`)).body).toEqual(before);
  });
});

describe("DELETE /api/leads/{lead_id}", () => {
  it("deletes with any role (204, no body); the contact stays", async () => {
    const t = await tenant();
    const lead = await createLead(t.owner, { name: "Short Lived", phone_number: "555-010-4000" });
    const keep = await createLead(t.owner, { name: "Keeper" });
    const res = await t.member.delete(`/api/leads/${lead.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectDetail(await t.owner.get(`/api/leads/${lead.id}`), 404);
    expectDetail(await t.owner.delete(`/api/leads/${lead.id}`), 404);
    expect(await getContact(t.owner, lead.contact_id)).toMatchObject({
      name: "Short Lived",
      phone_number: "+15550104000",
    });
    expect(idsOf((await t.owner.get("/api/leads")).body.items)).toEqual([keep.id]);
  });

  it("answers 404 for an unknown id and another organization's lead, which stays", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createLead(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.delete(`/api/leads/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`/api/leads/${foreign.id}`), 404);
    expect((await other.owner.get(`/api/leads/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 at path.lead_id for a malformed id", async () => {
    const t = await tenant();
    expect422(await t.owner.delete("/api/leads/xyz"), [{ loc: ["path", "lead_id"], type: "uuid_parsing" }]);
  });
});

describe("GET /api/leads", () => {
  it("answers {items, total, page, page_size} with the defaults page 1 and page_size 50", async () => {
    const t = await tenant();
    expect((await t.owner.get("/api/leads")).body).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
    const lead = await createLead(t.owner, { name: "Listed" });
    const res = await t.owner.get("/api/leads");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [lead], total: 1, page: 1, page_size: 50 });
  });

  it("pages without overlap; a page past the end is empty with the true total", async () => {
    const t = await tenant();
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await createLead(t.owner, { name: `Lead ${i}` }));
    const seen: string[] = [];
    for (const [page, size] of [
      [1, 2],
      [2, 2],
      [3, 1],
    ] as const) {
      const res = await t.owner.get(`/api/leads?page=${page}&page_size=2`);
      expect(res.body).toMatchObject({ total: 5, page, page_size: 2 });
      expect(res.body.items).toHaveLength(size);
      seen.push(...idsOf(res.body.items));
    }
    expect(sorted(seen)).toEqual(sorted(idsOf(created)));
    expect((await t.owner.get("/api/leads?page=4&page_size=2")).body).toEqual({
      items: [],
      total: 5,
      page: 4,
      page_size: 2,
    });
  });

  it("caps the default page at 50 and accepts page_size 1 and 100", async () => {
    const t = await tenant();
    for (let i = 0; i < 51; i++) await createLead(t.owner, { name: `Many ${i}` });
    const res = await t.owner.get("/api/leads");
    expect(res.body.items).toHaveLength(50);
    expect(res.body.total).toBe(51);
    expect((await t.owner.get("/api/leads?page_size=100")).body.items).toHaveLength(51);
    expect((await t.owner.get("/api/leads?page_size=1")).body.items).toHaveLength(1);
  });

  it("filters by status", async () => {
    const t = await tenant();
    const fresh = await createLead(t.owner, { name: "Fresh" });
    const won = await createLead(t.owner, { name: "Winner", status: "won" });
    const lost = await createLead(t.owner, { name: "Loser", status: "lost", lost_reason: "price" });
    expect(idsOf((await t.owner.get("/api/leads?status=new")).body.items)).toEqual([fresh.id]);
    expect(idsOf((await t.owner.get("/api/leads?status=won")).body.items)).toEqual([won.id]);
    expect(idsOf((await t.owner.get("/api/leads?status=lost")).body.items)).toEqual([lost.id]);
    expect((await t.owner.get("/api/leads?status=proposal")).body).toMatchObject({ items: [], total: 0 });
    expect((await t.owner.get("/api/leads")).body.total).toBe(3);
  });

  describe("search", () => {
    let t: Tenant;
    let water: Lead;
    beforeAll(async () => {
      t = await tenant();
      water = await createLead(t.owner, {
        name: "Walter White",
        phone_number: "(555) 010-5000",
        email: "walter@example.com",
        notes: "Water heater LEAKING",
      });
      await createLead(t.owner, {
        name: "Skyler",
        phone_number: "555-010-5999",
        email: "sky@example.org",
        notes: "Roof",
      });
    });

    it.each([
      ["contact name", "WALTER wh"],
      ["contact email", "walter@EXAMPLE"],
      ["lead notes", "heater leak"],
      ["phone as (555) 010-5000", "(555) 010-5000"],
      ["phone as 555-010-5000", "555-010-5000"],
      ["phone as +15550105000", "+15550105000"],
    ])("matches by %s, case-insensitively", async (_label, search) => {
      const res = await t.owner.get(`/api/leads?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ items: [water], total: 1 });
    });

    it("finds nothing for unknown text and never another organization's leads", async () => {
      expect((await t.owner.get("/api/leads?search=nothing-like-this")).body).toMatchObject({ items: [], total: 0 });
      const other = await tenant();
      expect((await other.owner.get("/api/leads?search=walter")).body).toMatchObject({ items: [], total: 0 });
    });
  });

  it("never lists another organization's leads", async () => {
    const t = await tenant();
    const other = await tenant();
    await createLead(other.owner, {
      name: "Foreign",
      next_step_due_at: DateTime.now().minus({ days: 1 }).toUTC().toISO(),
    });
    for (const query of ["", "?status=new", "?due_days=365", "?stale_days=1", "?search=foreign"]) {
      expect((await t.owner.get(`/api/leads${query}`)).body).toMatchObject({ items: [], total: 0 });
    }
  });

  describe("stale_days", () => {
    it("leaves out leads touched within the window", async () => {
      const t = await tenant();
      await createLead(t.owner, { name: "Fresh Lead" });
      for (const days of [1, 30, 365]) {
        const res = await t.owner.get(`/api/leads?stale_days=${days}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
      }
    });

    it.each([
      ["0", "greater_than_equal"],
      ["366", "less_than_equal"],
      ["-3", "greater_than_equal"],
      ["abc", "int_parsing"],
      ["1.5", "int_parsing"],
    ])("rejects stale_days=%s with 422", async (value, type) => {
      const t = await tenant();
      expect422(await t.owner.get(`/api/leads?stale_days=${value}`), [{ loc: ["query", "stale_days"], type }]);
    });
  });

  describe.each(["America/Chicago", "Asia/Tokyo"])("due_days in %s", (zone) => {
    it("counts days in the organization's timezone: 0 = today and everything late, soonest first, open leads only", async (ctx) => {
      const t = await tenant({ timezone: zone });
      const today = DateTime.now().setZone(zone).startOf("day");
      const iso = (at: DateTime) => at.toUTC().toISO() as string;
      const due = (name: string, at: DateTime, extra: Record<string, unknown> = {}) =>
        createLead(t.owner, { name, next_step_due_at: iso(at), ...extra });

      // Created out of order, so the listing must sort them.
      const tomorrowJustAfterMidnight = await due("Tomorrow 00:01", today.plus({ days: 1, minutes: 1 }));
      const todayLate = await due("Today 23:59", today.set({ hour: 23, minute: 59 }));
      const yesterday = await due("Yesterday", today.minus({ days: 1 }).set({ hour: 9 }));
      const lastMonth = await due("Last month", today.minus({ days: 31 }));
      const inTwoDays = await due("In two days", today.plus({ days: 2, hours: 12 }));
      const nextYear = await due("Next year", today.plus({ days: 400 }));
      await createLead(t.owner, { name: "No due date" });
      await due("Won, late", today.minus({ days: 1 }), { status: "won" });
      await due("Lost, late", today.minus({ days: 1 }), { status: "lost", lost_reason: "gone" });
      const closedLater = await due("Closed later", today.minus({ hours: 3 }), { status: "proposal" });
      expect((await t.owner.put(`/api/leads/${closedLater.id}`, { status: "won" })).status).toBe(200);

      const list = async (days: number) => {
        const res = await t.owner.get(`/api/leads?due_days=${days}`);
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(res.body.items.length);
        return idsOf(res.body.items);
      };
      const day0 = await list(0);
      const day1 = await list(1);
      const day2 = await list(2);
      const day365 = await list(365);
      // A local midnight passing during the test would move every boundary: try again later.
      if (DateTime.now().setZone(zone).startOf("day").toMillis() !== today.toMillis()) ctx.skip();

      expect(day0).toEqual([lastMonth.id, yesterday.id, todayLate.id]);
      expect(day1).toEqual([lastMonth.id, yesterday.id, todayLate.id, tomorrowJustAfterMidnight.id]);
      expect(day2).toEqual([lastMonth.id, yesterday.id, todayLate.id, tomorrowJustAfterMidnight.id, inTwoDays.id]);
      expect(day365).toEqual(day2);
      expect(day365).not.toContain(nextYear.id);
    });
  });

  it("combines due_days with paging and status", async () => {
    const t = await tenant();
    const today = DateTime.now().setZone("America/Chicago").startOf("day");
    const a = await createLead(t.owner, {
      name: "A",
      next_step_due_at: today.minus({ days: 3 }).toUTC().toISO(),
      status: "contacted",
    });
    const b = await createLead(t.owner, { name: "B", next_step_due_at: today.minus({ days: 2 }).toUTC().toISO() });
    const c = await createLead(t.owner, {
      name: "C",
      next_step_due_at: today.minus({ days: 1 }).toUTC().toISO(),
      status: "contacted",
    });
    expect((await t.owner.get("/api/leads?due_days=0&page_size=2&page=2")).body).toMatchObject({
      total: 3,
      items: [{ id: c.id }],
    });
    expect(idsOf((await t.owner.get("/api/leads?due_days=0&status=contacted")).body.items)).toEqual([a.id, c.id]);
    expect(b.status).toBe("new");
  });

  it.each([
    ["-1", "greater_than_equal"],
    ["366", "less_than_equal"],
    ["soon", "int_parsing"],
  ])("rejects due_days=%s with 422", async (value, type) => {
    const t = await tenant();
    expect422(await t.owner.get(`/api/leads?due_days=${value}`), [{ loc: ["query", "due_days"], type }]);
  });

  it.each([
    ["page_size=0", "page_size", "greater_than_equal"],
    ["page_size=101", "page_size", "less_than_equal"],
    ["page_size=abc", "page_size", "int_parsing"],
    ["page=0", "page", "greater_than_equal"],
    ["status=open", "status", "enum"],
  ])("rejects %s with 422", async (query, field, type) => {
    const t = await tenant();
    expect422(await t.owner.get(`/api/leads?${query}`), [{ loc: ["query", field], type }]);
  });

  it("reports every bad query parameter at once", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/leads?page=0&page_size=101&status=x&stale_days=0&due_days=366"), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
      { loc: ["query", "status"], type: "enum" },
      { loc: ["query", "stale_days"], type: "greater_than_equal" },
      { loc: ["query", "due_days"], type: "less_than_equal" },
    ]);
  });
});

describe("GET /api/leads/pipeline", () => {
  it("answers zeros for every status in a fresh organization", async () => {
    const t = await tenant();
    const res = await t.owner.get("/api/leads/pipeline");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      window_days: 30,
      by_status: Object.fromEntries(STATUSES.map((s) => [s, 0])),
      won_count: 0,
      lost_count: 0,
      recent_loss_reasons: [],
      customers_won: [],
    });
  });

  it("counts leads per status, recent wins and losses, latest loss first", async () => {
    const t = await tenant();
    const other = await tenant();
    await createLead(other.owner, { name: "Elsewhere", status: "won" });
    await createLead(other.owner, { name: "Elsewhere lost", status: "lost", lost_reason: "other org" });

    await createLead(t.owner, { name: "N1" });
    await createLead(t.owner, { name: "N2" });
    await createLead(t.owner, { name: "C", status: "contacted" });
    await createLead(t.owner, { name: "Q", status: "qualified" });
    await createLead(t.owner, { name: "P", status: "proposal" });
    const won = await createLead(t.owner, { name: "Winner Co", phone_number: "555-010-8000" });
    const wonRes = await t.owner.put<Lead>(`/api/leads/${won.id}`, { status: "won" });
    const firstLoss = await createLead(t.owner, { name: "L1", status: "lost", lost_reason: "Too expensive" });
    const secondLoss = await createLead(t.owner, { name: "L2", status: "lost", lost_reason: "Went silent" });

    const res = await t.member.get("/api/leads/pipeline");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      window_days: 30,
      by_status: { new: 2, contacted: 1, qualified: 1, proposal: 1, won: 1, lost: 2 },
      won_count: 1,
      lost_count: 2,
      recent_loss_reasons: [
        { lead_id: secondLoss.id, reason: "Went silent", lost_at: secondLoss.lost_at },
        { lead_id: firstLoss.id, reason: "Too expensive", lost_at: firstLoss.lost_at },
      ],
      customers_won: [{ contact_id: won.contact_id, name: "Winner Co", won_at: wonRes.body.won_at }],
    });
  });

  it("keeps only the latest 10 loss reasons while counting every loss", async () => {
    const t = await tenant();
    const losses = [];
    for (let i = 0; i < 11; i++)
      losses.push(await createLead(t.owner, { name: `Loss ${i}`, status: "lost", lost_reason: `reason ${i}` }));
    const res = await t.owner.get("/api/leads/pipeline");
    expect(res.body.lost_count).toBe(11);
    expect(res.body.by_status.lost).toBe(11);
    expect(res.body.recent_loss_reasons).toHaveLength(10);
    expect(res.body.recent_loss_reasons.map((r: { reason: string }) => r.reason)).toEqual(
      losses
        .slice(1)
        .reverse()
        .map((l) => l.lost_reason),
    );
    const stamps = res.body.recent_loss_reasons.map((r: { lost_at: string }) => Date.parse(r.lost_at));
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
  });

  it("follows reopened and deleted leads", async () => {
    const t = await tenant();
    const lost = await createLead(t.owner, { name: "Comeback", status: "lost", lost_reason: "timing" });
    const won = await createLead(t.owner, { name: "Fickle", status: "won" });
    expect((await t.owner.get("/api/leads/pipeline")).body).toMatchObject({ won_count: 1, lost_count: 1 });

    expect((await t.owner.put(`/api/leads/${lost.id}`, { status: "qualified" })).status).toBe(200);
    expect((await t.owner.put(`/api/leads/${won.id}`, { status: "proposal" })).status).toBe(200);
    const reopened = (await t.owner.get("/api/leads/pipeline")).body;
    expect(reopened).toMatchObject({ won_count: 0, lost_count: 0, recent_loss_reasons: [], customers_won: [] });
    expect(reopened.by_status).toEqual({ new: 0, contacted: 0, qualified: 1, proposal: 1, won: 0, lost: 0 });

    expect((await t.owner.delete(`/api/leads/${lost.id}`)).status).toBe(204);
    expect((await t.owner.get("/api/leads/pipeline")).body.by_status).toMatchObject({ qualified: 0, proposal: 1 });
  });
});
