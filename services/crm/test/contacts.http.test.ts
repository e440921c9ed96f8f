import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  anonymousClient,
  ApiClient,
  eventually,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  namesOf,
  RFC3339_UTC,
  tenantFactory,
  testAdmin,
  UNKNOWN_ID,
  unknownKeyClient,
  UUID_PATTERN,
  type Tenant,
} from "@voiceops/platform/testing";

// HTTP tests of the CRM contacts routes, through the gateway. Every test (or describe) works in
// its own fresh organization, so counts are exact even though the database outlives the run.

const baseUrl = inject("baseUrl");
const admin = testAdmin();
const tenant = tenantFactory({ timezone: "America/Chicago" });

const CONTACT_KEYS = [
  "address",
  "company_name",
  "created_at",
  "email",
  "id",
  "name",
  "notes",
  "phone_number",
  "status",
  "tags",
  "updated_at",
];

interface Contact {
  id: string;
  name: string | null;
  phone_number: string | null;
  email: string | null;
  status: string;
  company_name: string | null;
  address: string | null;
  notes: string | null;
  tags: string[];
  created_at: string;
  updated_at: string;
}

async function createContact(client: ApiClient, body: Record<string, unknown>): Promise<Contact> {
  return expectStatus(await client.post<Contact>("/api/contacts", body), 201);
}

async function listAll(client: ApiClient, query = ""): Promise<{ items: Contact[]; total: number }> {
  return expectStatus(await client.get(`/api/contacts?page_size=100${query}`), 200);
}

describe("authentication", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
    await createContact(t.owner, { name: "Visible" });
  });

  it.each([
    ["GET", "/api/contacts"],
    ["POST", "/api/contacts"],
    ["GET", "/api/contacts/search?q=a"],
    ["GET", "/api/contacts/search-by-email?email=abc"],
    ["GET", `/api/contacts/${UNKNOWN_ID}`],
    ["PUT", `/api/contacts/${UNKNOWN_ID}`],
    ["DELETE", `/api/contacts/${UNKNOWN_ID}`],
    ["POST", "/api/contacts/bulk-delete"],
  ])("%s %s without a key is 401", async (method, path) => {
    await expect401(anonymousClient(), method, path, { name: "x", ids: [UNKNOWN_ID] });
  });

  it("rejects an unknown key with 401", async () => {
    const stranger = unknownKeyClient();
    expectDetail(await stranger.get("/api/contacts"), 401);
    expectDetail(await stranger.post("/api/contacts", { name: "Nope" }), 401);
  });

  it("rejects a revoked key with 401", async () => {
    const key = await admin.createKey(t.orgId, { role: "owner" });
    const client = new ApiClient(baseUrl, key.key);
    expect((await client.get("/api/contacts")).status).toBe(200);
    expect((await admin.request("DELETE", `/admin/api-keys/${key.id}`)).status).toBe(204);
    // The contract allows a revocation up to 5 s to reach every gateway replica.
    const res = await eventually(async () => {
      const answer = await client.get("/api/contacts");
      return answer.status === 401 ? answer : undefined;
    }, 30_000);
    expectDetail(res, 401);
  });

  it("ignores X-Organization-Id: the key alone decides the organization", async () => {
    const other = await tenant();
    await createContact(other.owner, { name: "Hidden" });
    const res = await t.owner.get("/api/contacts", { "X-Organization-Id": other.orgId });
    expect(res.status).toBe(200);
    expect(namesOf(res.body.items)).toEqual(["Visible"]);
  });
});

describe("POST /api/contacts", () => {
  it("creates a contact with every field and answers 201 with the full record", async () => {
    const t = await tenant();
    const res = await t.owner.post<Contact>("/api/contacts", {
      name: "Dana Reyes",
      phone_number: "(555) 010-2000",
      email: "dana@example.com",
      status: "customer",
      company_name: "Reyes Plumbing",
      address: "12 Elm St, Springfield",
      notes: "Prefers mornings",
      tags: ["vip", "plumbing"],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(CONTACT_KEYS);
    expect(res.body).toMatchObject({
      name: "Dana Reyes",
      phone_number: "+15550102000",
      email: "dana@example.com",
      status: "customer",
      company_name: "Reyes Plumbing",
      address: "12 Elm St, Springfield",
      notes: "Prefers mornings",
      tags: ["vip", "plumbing"],
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect(res.body.updated_at).toMatch(RFC3339_UTC);

    const read = await t.owner.get(`/api/contacts/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("defaults status to lead and shows unset fields as null", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Only Name" });
    expect(contact).toMatchObject({
      name: "Only Name",
      phone_number: null,
      email: null,
      status: "lead",
      company_name: null,
      address: null,
      notes: null,
      tags: [],
    });
    expect(contact.created_at).toBe(contact.updated_at);
  });

  it("accepts a phone number without a name", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { phone_number: "555-010-2001" });
    expect(contact.name).toBeNull();
    expect(contact.phone_number).toBe("+15550102001");
  });

  it.each([
    ["(555) 010-2000", "+15550102000"],
    ["555-010-2000", "+15550102000"],
    ["555.010.2000", "+15550102000"],
    ["+1 555 010 2000", "+15550102000"],
    ["+15550102000", "+15550102000"],
  ])("normalizes %s to E.164 %s for a US organization", async (input, e164) => {
    const t = await tenant();
    expect((await createContact(t.owner, { name: "P", phone_number: input })).phone_number).toBe(e164);
  });

  it("normalizes with the organization's default country", async () => {
    const t = await tenant({ default_country: "GB" });
    expect((await createContact(t.owner, { phone_number: "020 7946 0958" })).phone_number).toBe("+442079460958");
    // A number with its own country code keeps it.
    expect((await createContact(t.owner, { phone_number: "+1 (555) 010-2000" })).phone_number).toBe("+15550102000");
  });

  it("ignores unknown body fields", async () => {
    const t = await tenant();
    const res = await t.owner.post("/api/contacts", { name: "Extra", favourite_color: "blue", id: UNKNOWN_ID });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(UNKNOWN_ID);
    expect(res.body).not.toHaveProperty("favourite_color");
  });

  it.each([
    ["an empty object", {}],
    ["only an email", { email: "nobody@example.com" }],
    ["a blank name", { name: "   " }],
  ])("needs a name or a phone number: %s is 422 at body", async (_label, body) => {
    const t = await tenant();
    const detail = expect422(await t.owner.post("/api/contacts", body), [{ loc: ["body"], type: "value_error" }]);
    expect(detail[0]?.msg).toMatch(/name|phone/);
    expect((await listAll(t.owner)).total).toBe(0);
  });

  it.each(["abc", "12", "phone-please"])(
    "rejects the phone number %j with 422 at body.phone_number and stores nothing",
    async (phone) => {
      const t = await tenant();
      expect422(await t.owner.post("/api/contacts", { name: "Bad Phone", phone_number: phone }), [
        { loc: ["body", "phone_number"], type: "value_error" },
      ]);
      expect((await listAll(t.owner)).total).toBe(0);
    },
  );

  it("answers 409 for a second contact with the same normalized phone, naming the existing contact", async () => {
    const t = await tenant();
    const first = await createContact(t.owner, { name: "First", phone_number: "(555) 010-2000" });
    const detail = expectDetail(
      await t.owner.post("/api/contacts", { name: "Second", phone_number: "+1 555-010-2000" }),
      409,
    );
    expect(detail).toContain(first.id);
    const all = await listAll(t.owner);
    expect(all.total).toBe(1);
    expect(all.items[0]).toEqual(first);
  });

  it("lets another organization use the same phone number", async () => {
    const a = await tenant();
    const b = await tenant();
    const inA = await createContact(a.owner, { name: "A", phone_number: "555-010-2000" });
    const inB = await createContact(b.owner, { name: "B", phone_number: "(555) 010-2000" });
    expect(inB.phone_number).toBe(inA.phone_number);
    expect(inB.id).not.toBe(inA.id);
  });

  it("reports every failing field at once, with pydantic types", async () => {
    const t = await tenant();
    expect422(
      await t.owner.post("/api/contacts", {
        name: 5,
        status: "vip",
        tags: "x",
        company_name: "c".repeat(201),
        email: "not-an-email",
      }),
      [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "email"], type: "value_error" },
        { loc: ["body", "status"], type: "enum" },
        { loc: ["body", "company_name"], type: "string_too_long" },
        { loc: ["body", "tags"], type: "list_type" },
      ],
    );
    expect422(await t.owner.post("/api/contacts", { name: "Tagged", tags: ["ok", 7] }), [
      { loc: ["body", "tags", 1], type: "string_type" },
    ]);
    expect((await listAll(t.owner)).total).toBe(0);
  });

  it("answers 422 json_invalid for a malformed JSON body", async () => {
    const t = await tenant();
    const detail = expect422(await t.owner.request("POST", "/api/contacts", { rawBody: '{"name": "Broken",' }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect(detail[0]?.msg).toBeTruthy();
    expect((await listAll(t.owner)).total).toBe(0);
  });

  it("answers 422 for a missing body or a body that is not an object", async () => {
    const t = await tenant();
    expect422(await t.owner.request("POST", "/api/contacts"), [{ loc: ["body"] }]);
    expect422(await t.owner.post("/api/contacts", ["Dana"]), [{ loc: ["body"] }]);
  });
});

describe("GET /api/contacts", () => {
  it("answers {items, total, page, page_size} with the defaults page 1 and page_size 50", async () => {
    const t = await tenant();
    const created = await createContact(t.owner, { name: "Solo", phone_number: "555-010-3000" });
    const res = await t.owner.get("/api/contacts");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["items", "page", "page_size", "total"]);
    expect(res.body).toEqual({ items: [created], total: 1, page: 1, page_size: 50 });
  });

  it("returns an empty page for a fresh organization", async () => {
    const t = await tenant();
    expect((await t.owner.get("/api/contacts")).body).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
  });

  it("caps the default page at 50 and counts every match in total", async () => {
    const t = await tenant();
    for (let i = 0; i < 52; i++) await createContact(t.owner, { name: `Bulk ${String(i).padStart(2, "0")}` });
    const res = await t.owner.get("/api/contacts");
    expect(res.body.items).toHaveLength(50);
    expect(res.body.total).toBe(52);
    const second = await t.owner.get("/api/contacts?page=2");
    expect(namesOf(second.body.items)).toEqual(["Bulk 50", "Bulk 51"]);
  });

  it("pages without overlap; a page past the end is empty with the true total", async () => {
    const t = await tenant();
    for (const name of ["Ana", "Ben", "Cy", "Dee", "Eve"]) await createContact(t.owner, { name });
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await t.owner.get(`/api/contacts?page=${page}&page_size=2`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 5, page, page_size: 2 });
      pages.push(namesOf(res.body.items));
    }
    expect(pages).toEqual([["Ana", "Ben"], ["Cy", "Dee"], ["Eve"]]);
    expect((await t.owner.get("/api/contacts?page=4&page_size=2")).body).toEqual({
      items: [],
      total: 5,
      page: 4,
      page_size: 2,
    });
    expect((await t.owner.get("/api/contacts?page=1000")).body).toEqual({
      items: [],
      total: 5,
      page: 1000,
      page_size: 50,
    });
  });

  it("accepts the bounds page_size=1 and page_size=100", async () => {
    const t = await tenant();
    for (const name of ["A1", "A2"]) await createContact(t.owner, { name });
    expect((await t.owner.get("/api/contacts?page_size=1")).body).toMatchObject({
      total: 2,
      page_size: 1,
      items: [{ name: "A1" }],
    });
    expect((await t.owner.get("/api/contacts?page_size=100")).body.items).toHaveLength(2);
  });

  describe("sort", () => {
    let t: Tenant;
    let created: Contact[];
    beforeAll(async () => {
      t = await tenant();
      created = [];
      // Two names equal but for case: the tie is broken by id.
      for (const name of ["bravo", "Alpha", "charlie", "ALPHA", "Delta"])
        created.push(await createContact(t.owner, { name }));
    });

    it("defaults to name A→Z, case-insensitive, ties by id", async () => {
      const [bravo, alpha, charlie, upperAlpha, delta] = created as [Contact, Contact, Contact, Contact, Contact];
      const tied = [alpha, upperAlpha].sort((a, b) => (a.id < b.id ? -1 : 1));
      const expected = [...tied, bravo, charlie, delta].map((c) => c.id);
      expect(idsOf((await t.owner.get("/api/contacts")).body.items)).toEqual(expected);
      expect(idsOf((await t.owner.get("/api/contacts?sort=name")).body.items)).toEqual(expected);
    });

    it("sort=name_desc is the exact reverse", async () => {
      const asc = idsOf((await t.owner.get("/api/contacts?sort=name")).body.items);
      expect(idsOf((await t.owner.get("/api/contacts?sort=name_desc")).body.items)).toEqual([...asc].reverse());
    });

    it("sort=newest lists the latest created first", async () => {
      expect(idsOf((await t.owner.get("/api/contacts?sort=newest")).body.items)).toEqual(idsOf([...created].reverse()));
    });

    it("keeps the order across pages", async () => {
      const whole = idsOf((await t.owner.get("/api/contacts?sort=name_desc")).body.items);
      const paged = [];
      for (const page of [1, 2, 3])
        paged.push(...idsOf((await t.owner.get(`/api/contacts?sort=name_desc&page=${page}&page_size=2`)).body.items));
      expect(paged).toEqual(whole);
    });
  });

  describe("prospects and status", () => {
    let t: Tenant;
    beforeAll(async () => {
      t = await tenant();
      for (const [name, status] of [
        ["Pat Prospect", "prospect"],
        ["Pia Prospect", "prospect"],
        ["Lee Lead", "lead"],
        ["Cal Customer", "customer"],
        ["Ida Inactive", "inactive"],
      ]) {
        await createContact(t.owner, { name, status });
      }
    });

    it("by default lists everyone but prospects", async () => {
      const res = await t.owner.get("/api/contacts");
      expect(namesOf(res.body.items)).toEqual(["Cal Customer", "Ida Inactive", "Lee Lead"]);
      expect(res.body.total).toBe(3);
      expect((await t.owner.get("/api/contacts?prospects=false")).body.total).toBe(3);
    });

    it("prospects=true lists only prospects", async () => {
      const res = await t.owner.get("/api/contacts?prospects=true");
      expect(namesOf(res.body.items)).toEqual(["Pat Prospect", "Pia Prospect"]);
      expect(res.body.total).toBe(2);
    });

    it.each([
      ["status=customer", ["Cal Customer"]],
      ["status=prospect", ["Pat Prospect", "Pia Prospect"]],
      ["status=prospect&prospects=false", ["Pat Prospect", "Pia Prospect"]],
      ["status=lead&prospects=true", ["Lee Lead"]],
      ["status=inactive", ["Ida Inactive"]],
    ])("an explicit status overrides the split: %s", async (query, expected) => {
      const res = await t.owner.get(`/api/contacts?${query}`);
      expect(res.status).toBe(200);
      expect(namesOf(res.body.items)).toEqual(expected);
      expect(res.body.total).toBe(expected.length);
    });

    it("a contact moved to prospect leaves the default listing", async () => {
      const own = await tenant();
      const moved = await createContact(own.owner, { name: "Mover" });
      expect((await own.owner.put(`/api/contacts/${moved.id}`, { status: "prospect" })).status).toBe(200);
      expect((await own.owner.get("/api/contacts")).body.total).toBe(0);
      expect(namesOf((await own.owner.get("/api/contacts?prospects=true")).body.items)).toEqual(["Mover"]);
    });
  });

  describe("search", () => {
    let t: Tenant;
    let dana: Contact;
    beforeAll(async () => {
      t = await tenant();
      dana = await createContact(t.owner, {
        name: "Dana Reyes",
        phone_number: "(555) 010-2000",
        email: "dana.reyes@example.com",
        company_name: "Reyes Plumbing",
        address: "12 Elm Street",
      });
      await createContact(t.owner, { name: "Ann", email: "lee@sample.org", phone_number: "555-010-4444" });
      await createContact(t.owner, { name: "100% Heating", address: "4 Oak Avenue" });
      await createContact(t.owner, { name: "Hidden Prospect", status: "prospect", company_name: "Reyes Plumbing" });
    });

    it.each([
      ["name, any case", "dANA"],
      ["email", "REYES@EXAMPLE"],
      ["company", "plumbing"],
      ["address", "elm str"],
      ["phone as (555) 010-2000", "(555) 010-2000"],
      ["phone as 555-010-2000", "555-010-2000"],
      ["phone as +15550102000", "+15550102000"],
      ["phone as plain digits", "5550102000"],
      ["part of the phone", "010-2000"],
    ])("matches by %s", async (_label, search) => {
      const res = await t.owner.get(`/api/contacts?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([dana]);
      expect(res.body.total).toBe(1);
    });

    it("matches a long number whole, though only its last seven digits narrow the search, and only in the organization", async () => {
      const sameTail = await createContact(t.owner, { name: "Same Tail", phone_number: "(666) 010-2000" });
      const named = await createContact(t.owner, { name: "Call (555) 010-2000 first" });
      const other = await tenant();
      await createContact(other.owner, { name: "Call (555) 010-2000 too", phone_number: "(555) 010-2000" });
      try {
        for (const search of ["(555) 010-2000", "+15550102000"]) {
          const res = await t.owner.get(`/api/contacts?search=${encodeURIComponent(search)}`);
          expect(idsOf(res.body.items).sort(), search).toEqual(
            (search.startsWith("(") ? [dana.id, named.id] : [dana.id]).sort(),
          );
          const found = await t.owner.get(`/api/contacts/search?q=${encodeURIComponent(search)}`);
          expect(idsOf(found.body)[0], search).toBe(dana.id);
          expect(idsOf(found.body)).not.toContain(sameTail.id);
        }
        expect(idsOf((await t.owner.get("/api/contacts?search=010-2000")).body.items).sort()).toEqual(
          [dana.id, sameTail.id, named.id].sort(),
        );
      } finally {
        await t.owner.delete(`/api/contacts/${sameTail.id}`);
        await t.owner.delete(`/api/contacts/${named.id}`);
      }
    });

    it("finds nothing for text in no field, and no match spans two fields", async () => {
      expect((await t.owner.get("/api/contacts?search=zzz")).body).toEqual({
        items: [],
        total: 0,
        page: 1,
        page_size: 50,
      });
      // "Ann" is a name and "lee@" an email of the same contact; "ann lee" is in neither.
      expect((await t.owner.get(`/api/contacts?search=${encodeURIComponent("ann lee")}`)).body.total).toBe(0);
    });

    it("takes LIKE wildcards literally", async () => {
      const res = await t.owner.get(`/api/contacts?search=${encodeURIComponent("%")}`);
      expect(namesOf(res.body.items)).toEqual(["100% Heating"]);
      expect((await t.owner.get(`/api/contacts?search=${encodeURIComponent("_")}`)).body.total).toBe(0);
    });

    it("combines with the prospects split and with paging", async () => {
      expect(namesOf((await t.owner.get("/api/contacts?search=plumbing&prospects=true")).body.items)).toEqual([
        "Hidden Prospect",
      ]);
      const page = await t.owner.get("/api/contacts?search=a&page_size=1&page=2");
      expect(page.body.total).toBe(3);
      expect(page.body.items).toHaveLength(1);
    });
  });

  it("reports every bad query parameter at once", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/contacts?page=0&page_size=101&status=vip&prospects=maybe&sort=oldest"), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
      { loc: ["query", "status"], type: "enum" },
      { loc: ["query", "prospects"], type: "bool_parsing" },
      { loc: ["query", "sort"], type: "enum" },
    ]);
  });

  it.each([
    ["page_size=0", "page_size", "greater_than_equal"],
    ["page_size=101", "page_size", "less_than_equal"],
    ["page_size=abc", "page_size", "int_parsing"],
    ["page=0", "page", "greater_than_equal"],
    ["page=-1", "page", "greater_than_equal"],
    ["page=x", "page", "int_parsing"],
  ])("rejects %s with 422", async (query, field, type) => {
    const t = await tenant();
    const [entry] = expect422(await t.owner.get(`/api/contacts?${query}`), [{ loc: ["query", field], type }]);
    expect(entry).toHaveProperty("input");
  });
});

describe("GET /api/contacts/search", () => {
  it("answers an array, best match first: exact phone, then name prefix, then substring", async () => {
    const t = await tenant();
    const substring = await createContact(t.owner, { name: "Acme 5550103333 Supply" });
    const exact = await createContact(t.owner, { name: "Zed Exact", phone_number: "(555) 010-3333" });
    const prefix = await createContact(t.owner, { name: "5550103333 Plumbing" });
    await createContact(t.owner, { name: "Unrelated", phone_number: "555-010-9999" });
    const res = await t.owner.get("/api/contacts/search?q=5550103333");
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(idsOf(res.body)).toEqual([exact.id, prefix.id, substring.id]);
  });

  it("puts name prefixes before substrings, case-insensitively", async () => {
    const t = await tenant();
    await createContact(t.owner, { name: "Bob Smith" });
    await createContact(t.owner, { name: "smithers" });
    await createContact(t.owner, { name: "Ann Smith" });
    await createContact(t.owner, { name: "Jones" });
    const res = await t.owner.get("/api/contacts/search?q=SMITH");
    expect(namesOf(res.body)).toEqual(["smithers", "Ann Smith", "Bob Smith"]);
  });

  it.each(["(555) 010-2000", "555-010-2000", "+15550102000", "5550102000"])(
    "finds the contact by phone written as %s",
    async (q) => {
      const t = await tenant();
      const contact = await createContact(t.owner, { name: "Caller", phone_number: "+1 555 010 2000" });
      await createContact(t.owner, { name: "Someone Else", phone_number: "555-010-7777" });
      const res = await t.owner.get(`/api/contacts/search?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([contact]);
    },
  );

  it("searches every status, prospects included", async () => {
    const t = await tenant();
    await createContact(t.owner, { name: "Prospective Pat", status: "prospect" });
    expect(namesOf((await t.owner.get("/api/contacts/search?q=pat")).body)).toEqual(["Prospective Pat"]);
  });

  it("returns at most limit contacts, 10 by default", async () => {
    const t = await tenant();
    for (let i = 0; i < 12; i++) await createContact(t.owner, { name: `Match ${String(i).padStart(2, "0")}` });
    expect((await t.owner.get("/api/contacts/search?q=match")).body).toHaveLength(10);
    expect((await t.owner.get("/api/contacts/search?q=match&limit=3")).body).toHaveLength(3);
    expect((await t.owner.get("/api/contacts/search?q=match&limit=50")).body).toHaveLength(12);
    expect((await t.owner.get("/api/contacts/search?q=match&limit=1")).body).toHaveLength(1);
  });

  it("answers [] when nothing matches and never shows another organization's contacts", async () => {
    const t = await tenant();
    const other = await tenant();
    await createContact(other.owner, { name: "Foreign Frank", phone_number: "555-010-2000" });
    expect((await t.owner.get("/api/contacts/search?q=frank")).body).toEqual([]);
    expect((await t.owner.get("/api/contacts/search?q=5550102000")).body).toEqual([]);
  });

  it("requires q", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/contacts/search"), [{ loc: ["query", "q"], type: "missing" }]);
    expect422(await t.owner.get("/api/contacts/search?limit=5"), [{ loc: ["query", "q"], type: "missing" }]);
  });

  it("rejects an empty q (minimum length 1)", async () => {
    const t = await tenant();
    // pydantic names this string_too_short; the type is deliberately not pinned here (see report).
    expect422(await t.owner.get("/api/contacts/search?q="), [{ loc: ["query", "q"] }]);
  });

  it.each([
    ["limit=0", "greater_than_equal"],
    ["limit=51", "less_than_equal"],
    ["limit=ten", "int_parsing"],
  ])("rejects %s with 422", async (query, type) => {
    const t = await tenant();
    expect422(await t.owner.get(`/api/contacts/search?q=a&${query}`), [{ loc: ["query", "limit"], type }]);
  });

  it("reports q and limit together", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/contacts/search?limit=51"), [
      { loc: ["query", "q"], type: "missing" },
      { loc: ["query", "limit"], type: "less_than_equal" },
    ]);
  });
});

describe("GET /api/contacts/search-by-email", () => {
  let t: Tenant;
  let dana: Contact;
  let danny: Contact;
  beforeAll(async () => {
    t = await tenant();
    dana = await createContact(t.owner, { name: "Dana", email: "Dana.Reyes@Example.com" });
    danny = await createContact(t.owner, { name: "Danny", email: "danny@sample.org" });
    await createContact(t.owner, { name: "No Email" });
  });

  it("matches a case-insensitive substring and answers an array", async () => {
    const res = await t.owner.get("/api/contacts/search-by-email?email=reyes%40EXAMPLE");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([dana]);
    expect(idsOf((await t.owner.get("/api/contacts/search-by-email?email=DAN")).body).sort()).toEqual(
      [dana.id, danny.id].sort(),
    );
  });

  it("answers [] when nothing matches", async () => {
    expect((await t.owner.get("/api/contacts/search-by-email?email=nobody")).body).toEqual([]);
    // Three spaces pass the length rule but are no email text: they must not match everyone.
    expect((await t.owner.get(`/api/contacts/search-by-email?email=${encodeURIComponent("   ")}`)).body).toEqual([]);
  });

  it("takes LIKE wildcards literally", async () => {
    expect((await t.owner.get(`/api/contacts/search-by-email?email=${encodeURIComponent("%%%")}`)).body).toEqual([]);
  });

  it("returns at most limit contacts, 10 by default", async () => {
    const many = await tenant();
    for (let i = 0; i < 11; i++) await createContact(many.owner, { name: `E${i}`, email: `person${i}@bulk.test` });
    expect((await many.owner.get("/api/contacts/search-by-email?email=bulk.test")).body).toHaveLength(10);
    expect((await many.owner.get("/api/contacts/search-by-email?email=bulk.test&limit=2")).body).toHaveLength(2);
    expect((await many.owner.get("/api/contacts/search-by-email?email=bulk.test&limit=50")).body).toHaveLength(11);
  });

  it("never shows another organization's contacts", async () => {
    const other = await tenant();
    expect((await other.owner.get("/api/contacts/search-by-email?email=example.com")).body).toEqual([]);
  });

  it.each([
    ["", [{ loc: ["query", "email"], type: "missing" }]],
    ["?email=ab", [{ loc: ["query", "email"], type: "string_too_short" }]],
    ["?email=abc&limit=0", [{ loc: ["query", "limit"], type: "greater_than_equal" }]],
    ["?email=abc&limit=51", [{ loc: ["query", "limit"], type: "less_than_equal" }]],
    [
      "?email=a&limit=99",
      [
        { loc: ["query", "email"], type: "string_too_short" },
        { loc: ["query", "limit"], type: "less_than_equal" },
      ],
    ],
  ])("rejects %j with 422", async (query, expected) => {
    expect422(await t.owner.get(`/api/contacts/search-by-email${query}`), expected);
  });
});

describe("GET /api/contacts/{contact_id}", () => {
  it("reads a contact", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Reader", tags: ["a"] });
    const res = await t.owner.get(`/api/contacts/${contact.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(contact);
    expect((await t.member.get(`/api/contacts/${contact.id}`)).body).toEqual(contact);
    expect((await t.owner.get(`/api/contacts/${contact.id.toUpperCase()}`)).body).toEqual(contact);
  });

  it("answers 404 for an unknown id and for another organization's contact", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createContact(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.get(`/api/contacts/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.get(`/api/contacts/${foreign.id}`), 404);
  });

  it.each(["not-a-uuid", "12345", "00000000-0000-0000-0000-00000000000g"])(
    "answers 422 at path.contact_id for %s",
    async (id) => {
      const t = await tenant();
      const [entry] = expect422(await t.owner.get(`/api/contacts/${id}`), [
        { loc: ["path", "contact_id"], type: "uuid_parsing" },
      ]);
      expect(entry).toMatchObject({ input: id });
    },
  );
});

describe("PUT /api/contacts/{contact_id}", () => {
  const full = {
    name: "Full Contact",
    phone_number: "555-010-5000",
    email: "full@example.com",
    status: "lead",
    company_name: "Full Co",
    address: "1 Main St",
    notes: "first note",
    tags: ["one", "two"],
  };

  it("changes only the given fields and answers the whole contact", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    const res = await t.owner.put<Contact>(`/api/contacts/${before.id}`, { notes: "second note", status: "customer" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(CONTACT_KEYS);
    expect(res.body).toEqual({ ...before, notes: "second note", status: "customer", updated_at: res.body.updated_at });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await t.owner.get(`/api/contacts/${before.id}`)).body).toEqual(res.body);
  });

  it("is seen by every read that starts after it answers, while other reads of the contact run at once", async () => {
    // Embedded PGlite answers reads by id from results kept since the last write: a read must
    // never return a value older than a write that has answered.
    const t = await tenant();
    const before = await createContact(t.owner, full);
    const names = new Set([full.name]);
    for (let i = 0; i < 20; i++) {
      const beside = Array.from({ length: 10 }, () => t.owner.get<Contact>(`/api/contacts/${before.id}`));
      const name = `Version ${i}`;
      names.add(name);
      expect((await t.owner.put<Contact>(`/api/contacts/${before.id}`, { name })).status).toBe(200);
      expect((await t.owner.get<Contact>(`/api/contacts/${before.id}`)).body.name).toBe(name);
      for (const res of await Promise.all(beside)) expect(names).toContain(res.body.name);
    }
    const beside = Array.from({ length: 10 }, () => t.owner.get(`/api/contacts/${before.id}`));
    expect((await t.owner.delete(`/api/contacts/${before.id}`)).status).toBe(204);
    expect((await t.owner.get(`/api/contacts/${before.id}`)).status).toBe(404);
    for (const res of await Promise.all(beside)) expect([200, 404]).toContain(res.status);
  });

  it("lets a member update", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    const res = await t.member.put(`/api/contacts/${before.id}`, { name: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("Renamed");
  });

  it("clears optional fields given as null, and replaces tags", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    const res = await t.owner.put(`/api/contacts/${before.id}`, {
      email: null,
      company_name: null,
      address: null,
      tags: ["three"],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: null,
      company_name: null,
      address: null,
      tags: ["three"],
      name: full.name,
      phone_number: "+15550105000",
      notes: full.notes,
    });
    const cleared = await t.owner.put(`/api/contacts/${before.id}`, { tags: null, notes: null });
    expect(cleared.body).toMatchObject({ tags: [], notes: null, name: full.name });
  });

  it("keeps everything for an empty body", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    const res = await t.owner.put(`/api/contacts/${before.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
  });

  it("normalizes a new phone number, and accepts the contact's own number again", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    const res = await t.owner.put(`/api/contacts/${before.id}`, { phone_number: "(555) 010-5001" });
    expect(res.status).toBe(200);
    expect(res.body.phone_number).toBe("+15550105001");
    // Its own number, written differently and with the id in upper case, is no conflict.
    const again = await t.owner.put(`/api/contacts/${before.id.toUpperCase()}`, {
      phone_number: "+1 555 010 5001",
      name: "Same Number",
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ id: before.id, phone_number: "+15550105001", name: "Same Number" });
  });

  it("answers 409 when the phone number belongs to another contact, and changes nothing", async () => {
    const t = await tenant();
    const holder = await createContact(t.owner, { name: "Holder", phone_number: "555-010-6000" });
    const mover = await createContact(t.owner, { name: "Mover", phone_number: "555-010-6001" });
    const detail = expectDetail(
      await t.owner.put(`/api/contacts/${mover.id}`, { phone_number: "(555) 010-6000", name: "Changed" }),
      409,
    );
    expect(detail).toContain(holder.id);
    expect((await t.owner.get(`/api/contacts/${mover.id}`)).body).toEqual(mover);
  });

  it("may take a number another organization uses", async () => {
    const t = await tenant();
    const other = await tenant();
    await createContact(other.owner, { name: "Elsewhere", phone_number: "555-010-6100" });
    const mine = await createContact(t.owner, { name: "Mine" });
    expect((await t.owner.put(`/api/contacts/${mine.id}`, { phone_number: "555-010-6100" })).body.phone_number).toBe(
      "+15550106100",
    );
  });

  it("answers 422 for status null or a bad status, and changes nothing", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    expect422(await t.owner.put(`/api/contacts/${before.id}`, { status: null }), [{ loc: ["body", "status"] }]);
    expect422(await t.owner.put(`/api/contacts/${before.id}`, { status: "vip", notes: "ignored" }), [
      { loc: ["body", "status"], type: "enum" },
    ]);
    expect((await t.owner.get(`/api/contacts/${before.id}`)).body).toEqual(before);
  });

  it("answers 422 at body.phone_number for an invalid phone, and changes nothing", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    expect422(await t.owner.put(`/api/contacts/${before.id}`, { phone_number: "abc", notes: "ignored" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
    ]);
    expect((await t.owner.get(`/api/contacts/${before.id}`)).body).toEqual(before);
  });

  it("refuses to leave a contact without both name and phone number", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, { name: "Nameonly", email: "n@example.com" });
    expect422(await t.owner.put(`/api/contacts/${before.id}`, { name: null }), [
      { loc: ["body"], type: "value_error" },
    ]);
    expect((await t.owner.get(`/api/contacts/${before.id}`)).body).toEqual(before);
    // With a phone number the name may go.
    const res = await t.owner.put(`/api/contacts/${before.id}`, { name: null, phone_number: "555-010-6200" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: null, phone_number: "+15550106200" });
  });

  it("reports every bad field at once", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    expect422(
      await t.owner.put(`/api/contacts/${before.id}`, { name: 1, email: "nope", tags: [1], address: "a".repeat(501) }),
      [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "email"], type: "value_error" },
        { loc: ["body", "address"], type: "string_too_long" },
        { loc: ["body", "tags", 0], type: "string_type" },
      ],
    );
  });

  it("answers 404 for an unknown id and another organization's contact, even with a taken phone number", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createContact(other.owner, { name: "Foreign", phone_number: "555-010-6300" });
    await createContact(t.owner, { name: "Local", phone_number: "555-010-6301" });
    expectDetail(await t.owner.put(`/api/contacts/${UNKNOWN_ID}`, { name: "Ghost" }), 404);
    expectDetail(await t.owner.put(`/api/contacts/${foreign.id}`, { name: "Hijack" }), 404);
    expectDetail(await t.owner.put(`/api/contacts/${foreign.id}`, { phone_number: "555-010-6301" }), 404);
    expectDetail(await t.owner.put(`/api/contacts/${UNKNOWN_ID}`, { phone_number: "555-010-6301" }), 404);
    expect((await other.owner.get(`/api/contacts/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 for a malformed id, a malformed body or no body", async () => {
    const t = await tenant();
    const before = await createContact(t.owner, full);
    expect422(await t.owner.put("/api/contacts/not-a-uuid", { name: "x" }), [
      { loc: ["path", "contact_id"], type: "uuid_parsing" },
    ]);
    expect422(await t.owner.request("PUT", `/api/contacts/${before.id}`, { rawBody: "{name: 1}" }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.request("PUT", `/api/contacts/${before.id}`), [{ loc: ["body"] }]);
    expect((await t.owner.get(`/api/contacts/${before.id}`)).body).toEqual(before);
  });
});

describe("DELETE /api/contacts/{contact_id}", () => {
  it("lets the owner delete: 204 without a body, then 404", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Doomed" });
    const keep = await createContact(t.owner, { name: "Keeper" });
    const res = await t.owner.delete(`/api/contacts/${contact.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectDetail(await t.owner.get(`/api/contacts/${contact.id}`), 404);
    expectDetail(await t.owner.delete(`/api/contacts/${contact.id}`), 404);
    expect((await listAll(t.owner)).items).toEqual([keep]);
  });

  it("lets an admin key delete", async () => {
    const t = await tenant();
    const adminKey = await admin.createKey(t.orgId, { role: "admin" });
    const contact = await createContact(t.owner, { name: "Doomed" });
    expect((await new ApiClient(baseUrl, adminKey.key).delete(`/api/contacts/${contact.id}`)).status).toBe(204);
    expectDetail(await t.owner.get(`/api/contacts/${contact.id}`), 404);
  });

  it("answers 403 to a member key and keeps the contact", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Protected" });
    expectDetail(await t.member.delete(`/api/contacts/${contact.id}`), 403);
    expect((await t.owner.get(`/api/contacts/${contact.id}`)).body).toEqual(contact);
  });

  it("answers 404 for an unknown id and for another organization's contact, which stays", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createContact(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.delete(`/api/contacts/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`/api/contacts/${foreign.id}`), 404);
    expect((await other.owner.get(`/api/contacts/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 at path.contact_id for a malformed id", async () => {
    const t = await tenant();
    expect422(await t.owner.delete("/api/contacts/nope"), [{ loc: ["path", "contact_id"], type: "uuid_parsing" }]);
  });

  it("removes the contact's leads with it", async () => {
    const t = await tenant();
    const lead = await t.owner.post("/api/leads", { name: "With Lead", phone_number: "555-010-7000" });
    expect(lead.status).toBe(201);
    expect((await t.owner.delete(`/api/contacts/${lead.body.contact_id}`)).status).toBe(204);
    expectDetail(await t.owner.get(`/api/leads/${lead.body.id}`), 404);
    expect((await t.owner.get("/api/leads")).body.total).toBe(0);
  });
});

describe("POST /api/contacts/bulk-delete", () => {
  it("deletes the listed contacts, skips unknown and foreign ids silently, answers 204", async () => {
    const t = await tenant();
    const other = await tenant();
    const [a, b, keep] = [
      await createContact(t.owner, { name: "A" }),
      await createContact(t.owner, { name: "B" }),
      await createContact(t.owner, { name: "Keep" }),
    ];
    const foreign = await createContact(other.owner, { name: "Foreign" });
    const res = await t.owner.post("/api/contacts/bulk-delete", {
      ids: [a.id, b.id.toUpperCase(), UNKNOWN_ID, foreign.id, a.id],
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await listAll(t.owner)).items).toEqual([keep]);
    expect((await other.owner.get(`/api/contacts/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 204 and deletes nothing when every id is unknown or foreign", async () => {
    const t = await tenant();
    const other = await tenant();
    const mine = await createContact(t.owner, { name: "Mine" });
    const foreign = await createContact(other.owner, { name: "Foreign" });
    expect((await t.owner.post("/api/contacts/bulk-delete", { ids: [foreign.id, UNKNOWN_ID] })).status).toBe(204);
    expect((await other.owner.get(`/api/contacts/${foreign.id}`)).status).toBe(200);
    expect((await t.owner.get(`/api/contacts/${mine.id}`)).status).toBe(200);
  });

  it("lets an admin key bulk-delete", async () => {
    const t = await tenant();
    const adminKey = await admin.createKey(t.orgId, { role: "admin" });
    const contact = await createContact(t.owner, { name: "Doomed" });
    expect(
      (await new ApiClient(baseUrl, adminKey.key).post("/api/contacts/bulk-delete", { ids: [contact.id] })).status,
    ).toBe(204);
    expect((await listAll(t.owner)).total).toBe(0);
  });

  it("answers 403 to a member key and deletes nothing", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Protected" });
    expectDetail(await t.member.post("/api/contacts/bulk-delete", { ids: [contact.id] }), 403);
    expect((await listAll(t.owner)).items).toEqual([contact]);
  });

  it("accepts 500 ids and rejects 501", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Last" });
    const filler = Array.from({ length: 499 }, () => randomUUID());
    expect422(await t.owner.post("/api/contacts/bulk-delete", { ids: [...filler, randomUUID(), contact.id] }), [
      { loc: ["body", "ids"], type: "too_long" },
    ]);
    expect((await t.owner.get(`/api/contacts/${contact.id}`)).status).toBe(200);
    expect((await t.owner.post("/api/contacts/bulk-delete", { ids: [...filler, contact.id] })).status).toBe(204);
    expectDetail(await t.owner.get(`/api/contacts/${contact.id}`), 404);
  });

  it("answers 422 for an empty list, no ids, or ids that are not a list", async () => {
    const t = await tenant();
    // pydantic names the empty list too_short; the type is deliberately not pinned here (see report).
    expect422(await t.owner.post("/api/contacts/bulk-delete", { ids: [] }), [{ loc: ["body", "ids"] }]);
    expect422(await t.owner.post("/api/contacts/bulk-delete", {}), [{ loc: ["body", "ids"], type: "missing" }]);
    expect422(await t.owner.post("/api/contacts/bulk-delete", { ids: UNKNOWN_ID }), [
      { loc: ["body", "ids"], type: "list_type" },
    ]);
    expect422(await t.owner.request("POST", "/api/contacts/bulk-delete"), [{ loc: ["body"] }]);
    expect422(await t.owner.request("POST", "/api/contacts/bulk-delete", { rawBody: '{"ids": [' }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
  });

  it("answers 422 at body.ids.<index> for each malformed uuid, and deletes nothing", async () => {
    const t = await tenant();
    const contact = await createContact(t.owner, { name: "Survivor" });
    const detail = expect422(
      await t.owner.post("/api/contacts/bulk-delete", { ids: [contact.id, "nope", UNKNOWN_ID, 42] }),
      [{ loc: ["body", "ids", 1], type: "uuid_parsing" }, { loc: ["body", "ids", 3] }],
    );
    expect(detail.find((e) => e.loc[2] === 1)).toMatchObject({ input: "nope" });
    expect((await t.owner.get(`/api/contacts/${contact.id}`)).body).toEqual(contact);
  });
});
