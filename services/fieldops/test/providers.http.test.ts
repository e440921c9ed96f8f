import { beforeAll, describe, expect, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  namesOf,
  RFC3339_UTC,
  tenantFactory,
  UNKNOWN_ID,
  unknownKeyClient,
  UUID_PATTERN,
  type ApiClient,
  type Tenant,
} from "@voiceops/platform/testing";

// HTTP tests of the service-provider routes, through the gateway. Every test (or describe) works
// in its own fresh organization, so counts are exact even though the database outlives the run.

const tenant = tenantFactory();

const PROVIDER_KEYS = [
  "created_at",
  "email",
  "id",
  "is_on_call",
  "name",
  "notes",
  "phone_number",
  "skills",
  "specialty",
  "status",
  "updated_at",
];
const BASE = "/api/service-providers";

interface Provider {
  id: string;
  name: string;
  phone_number: string | null;
  email: string | null;
  specialty: string | null;
  skills: string[];
  status: string;
  is_on_call: boolean;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

interface ProviderList {
  items: Provider[];
  total: number;
  page: number;
  page_size: number;
}

async function createProvider(client: ApiClient, body: Record<string, unknown>): Promise<Provider> {
  return expectStatus(await client.post<Provider>(BASE, body), 201);
}

async function list(client: ApiClient, query = ""): Promise<ProviderList> {
  return expectStatus(await client.get<ProviderList>(`${BASE}${query}`), 200);
}

describe("authentication", () => {
  it.each([
    ["GET", BASE],
    ["POST", BASE],
    ["GET", `${BASE}/${UNKNOWN_ID}`],
    ["PUT", `${BASE}/${UNKNOWN_ID}`],
    ["DELETE", `${BASE}/${UNKNOWN_ID}`],
  ])("%s %s without a key is 401", async (method, path) => {
    await expect401(anonymousClient(), method, path, { name: "x" });
  });

  it("rejects an unknown key with 401 and creates nothing", async () => {
    const stranger = unknownKeyClient();
    expectDetail(await stranger.get(BASE), 401);
    expectDetail(await stranger.post(BASE, { name: "Nope" }), 401);
  });
});

describe("POST /api/service-providers", () => {
  it("creates a provider with every field and answers 201 with the full record", async () => {
    const t = await tenant();
    const res = await t.owner.post<Provider>(BASE, {
      name: "Reyes Plumbing",
      phone_number: "(555) 010-2000",
      email: "dispatch@reyes.example",
      specialty: "Plumbing",
      skills: ["pipes", "water heaters"],
      status: "suspended",
      is_on_call: true,
      notes: "Keys at the front desk",
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PROVIDER_KEYS);
    expect(res.body).toMatchObject({
      name: "Reyes Plumbing",
      phone_number: "+15550102000",
      email: "dispatch@reyes.example",
      specialty: "Plumbing",
      skills: ["pipes", "water heaters"],
      status: "suspended",
      is_on_call: true,
      notes: "Keys at the front desk",
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect(res.body.updated_at).toMatch(RFC3339_UTC);
    expect((await t.owner.get(`${BASE}/${res.body.id}`)).body).toEqual(res.body);
  });

  it("defaults status to active and is_on_call to false, and shows unset fields as null", async () => {
    const t = await tenant();
    const provider = await createProvider(t.owner, { name: "Only Name" });
    expect(provider).toMatchObject({
      name: "Only Name",
      phone_number: null,
      email: null,
      specialty: null,
      skills: [],
      status: "active",
      is_on_call: false,
      notes: null,
    });
    expect(provider.created_at).toBe(provider.updated_at);
  });

  it("trims the name, stores blank optional text as null", async () => {
    const t = await tenant();
    const provider = await createProvider(t.owner, {
      name: "  Padded  ",
      specialty: "   ",
      notes: "",
      phone_number: "  ",
    });
    expect(provider).toMatchObject({ name: "Padded", specialty: null, notes: null, phone_number: null });
  });

  it("trims skills, drops blanks and duplicates, keeps the order of first appearance", async () => {
    const t = await tenant();
    const provider = await createProvider(t.owner, {
      name: "Skilled",
      skills: [" hvac ", "", "welding", "hvac", "   ", "welding ", "gas"],
    });
    expect(provider.skills).toEqual(["hvac", "welding", "gas"]);
  });

  it.each([
    ["(555) 010-2000", "+15550102000"],
    ["555-010-2000", "+15550102000"],
    ["+1 555 010 2000", "+15550102000"],
  ])("normalizes %s to E.164 %s for a US organization", async (input, e164) => {
    const t = await tenant();
    expect((await createProvider(t.owner, { name: "P", phone_number: input })).phone_number).toBe(e164);
  });

  it("normalizes with the organization's default country", async () => {
    const t = await tenant({ default_country: "GB" });
    expect((await createProvider(t.owner, { name: "London", phone_number: "020 7946 0958" })).phone_number).toBe(
      "+442079460958",
    );
  });

  it.each(["abc", "12", "call me"])(
    "rejects the phone number %j with 422 at body.phone_number and stores nothing",
    async (phone) => {
      const t = await tenant();
      const [entry] = expect422(await t.owner.post(BASE, { name: "Bad Phone", phone_number: phone }), [
        { loc: ["body", "phone_number"], type: "value_error" },
      ]);
      expect(entry).toMatchObject({ input: phone });
      expect((await list(t.owner)).total).toBe(0);
    },
  );

  it("requires a name: missing, null or blank is 422 at body.name", async () => {
    const t = await tenant();
    expect422(await t.owner.post(BASE, { specialty: "Roofing" }), [{ loc: ["body", "name"], type: "missing" }]);
    expect422(await t.owner.post(BASE, { name: null }), [{ loc: ["body", "name"] }]);
    expect422(await t.owner.post(BASE, { name: "   " }), [{ loc: ["body", "name"], type: "string_too_short" }]);
    expect((await list(t.owner)).total).toBe(0);
  });

  it("reports every failing field at once", async () => {
    const t = await tenant();
    expect422(
      await t.owner.post(BASE, {
        name: "n".repeat(201),
        status: "retired",
        is_on_call: "maybe",
        email: "nope",
        skills: "hvac",
      }),
      [
        { loc: ["body", "name"], type: "string_too_long" },
        { loc: ["body", "status"], type: "enum" },
        { loc: ["body", "is_on_call"], type: "bool_parsing" },
        { loc: ["body", "email"], type: "value_error" },
        { loc: ["body", "skills"], type: "list_type" },
      ],
    );
    expect((await list(t.owner)).total).toBe(0);
  });

  it("answers 422 for a malformed JSON body", async () => {
    const t = await tenant();
    expect422(await t.owner.request("POST", BASE, { rawBody: '{"name": "Broken",' }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
  });
});

describe("GET /api/service-providers", () => {
  it("answers {items, total, page, page_size} with the defaults page 1 and page_size 10", async () => {
    const t = await tenant();
    const created = await createProvider(t.owner, { name: "Solo", phone_number: "555-010-3000" });
    const res = await t.owner.get(BASE);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["items", "page", "page_size", "total"]);
    expect(res.body).toEqual({ items: [created], total: 1, page: 1, page_size: 10 });
  });

  it("returns an empty page for a fresh organization and never shows another organization's providers", async () => {
    const t = await tenant();
    const other = await tenant();
    await createProvider(other.owner, { name: "Foreign", phone_number: "555-010-2000", specialty: "plumbing" });
    expect(await list(t.owner)).toEqual({ items: [], total: 0, page: 1, page_size: 10 });
    expect((await list(t.owner, "?search=5550102000")).total).toBe(0);
    expect((await list(t.owner, "?specialty=plumbing")).total).toBe(0);
  });

  it("orders by name A to Z, case-insensitively, ties by id", async () => {
    const t = await tenant();
    const created = [];
    for (const name of ["delta", "Bravo", "alpha", "Charlie", "bravo"])
      created.push(await createProvider(t.owner, { name }));
    const res = await list(t.owner);
    const bravos = idsOf(created.filter((p) => p.name.toLowerCase() === "bravo")).sort();
    expect(res.items.map((p) => p.name.toLowerCase())).toEqual(["alpha", "bravo", "bravo", "charlie", "delta"]);
    expect(idsOf(res.items.slice(1, 3))).toEqual(bravos);
  });

  it("caps the default page at 10 and counts every match in total", async () => {
    const t = await tenant();
    for (let i = 0; i < 12; i++) await createProvider(t.owner, { name: `Bulk ${String(i).padStart(2, "0")}` });
    const first = await list(t.owner);
    expect(first.items).toHaveLength(10);
    expect(first.total).toBe(12);
    expect(namesOf((await list(t.owner, "?page=2")).items)).toEqual(["Bulk 10", "Bulk 11"]);
  });

  it("pages without overlap; a page past the end is empty with the true total", async () => {
    const t = await tenant();
    for (const name of ["Ana", "Ben", "Cy", "Dee", "Eve"]) await createProvider(t.owner, { name });
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await list(t.owner, `?page=${page}&page_size=2`);
      expect(res).toMatchObject({ total: 5, page, page_size: 2 });
      pages.push(namesOf(res.items));
    }
    expect(pages).toEqual([["Ana", "Ben"], ["Cy", "Dee"], ["Eve"]]);
    expect(await list(t.owner, "?page=4&page_size=2")).toEqual({ items: [], total: 5, page: 4, page_size: 2 });
    expect(await list(t.owner, "?page=1000")).toEqual({ items: [], total: 5, page: 1000, page_size: 10 });
  });

  it("accepts the bounds page_size=1 and page_size=100", async () => {
    const t = await tenant();
    for (const name of ["A1", "A2"]) await createProvider(t.owner, { name });
    expect(await list(t.owner, "?page_size=1")).toMatchObject({ total: 2, page_size: 1, items: [{ name: "A1" }] });
    expect((await list(t.owner, "?page_size=100")).items).toHaveLength(2);
  });

  it.each([
    ["page_size=0", "page_size", "greater_than_equal"],
    ["page_size=101", "page_size", "less_than_equal"],
    ["page_size=abc", "page_size", "int_parsing"],
    ["page=0", "page", "greater_than_equal"],
    ["status=retired", "status", "enum"],
    ["status=ACTIVE", "status", "enum"],
  ])("rejects %s with 422", async (query, field, type) => {
    const t = await tenant();
    const [entry] = expect422(await t.owner.get(`${BASE}?${query}`), [{ loc: ["query", field], type }]);
    expect(entry).toHaveProperty("input");
  });

  it("reports every bad query parameter at once", async () => {
    const t = await tenant();
    expect422(await t.owner.get(`${BASE}?page=0&page_size=101&status=busy`), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
      { loc: ["query", "status"], type: "enum" },
    ]);
  });

  describe("filters", () => {
    let t: Tenant;
    let reyes: Provider;
    let ann: Provider;
    let sparks: Provider;
    let idle: Provider;
    let banned: Provider;
    beforeAll(async () => {
      t = await tenant();
      reyes = await createProvider(t.owner, {
        name: "Reyes Plumbing",
        phone_number: "(555) 010-2000",
        email: "dispatch@reyes.example",
        specialty: "Plumbing",
        skills: ["Water Heaters", "drains"],
        notes: "unique-note-text",
      });
      ann = await createProvider(t.owner, {
        name: "Ann",
        email: "lee@sample.org",
        phone_number: "555-010-4444",
        specialty: "plumbing repair",
      });
      sparks = await createProvider(t.owner, {
        name: "Sparks 100% Electric",
        specialty: "ELECTRICAL",
        skills: ["panels", "gas_lines"],
      });
      idle = await createProvider(t.owner, { name: "Idle Ida", specialty: "Plumbing", status: "inactive" });
      banned = await createProvider(t.owner, { name: "Banned Bob", specialty: "HVAC", status: "suspended" });
    });

    it.each([
      ["active", () => [ann, reyes, sparks]],
      ["inactive", () => [idle]],
      ["suspended", () => [banned]],
    ])("status=%s lists only that status", async (status, expected) => {
      const res = await list(t.owner, `?status=${status}`);
      expect(res.items).toEqual(expected());
      expect(res.total).toBe(expected().length);
    });

    it.each(["plumbing", "PLUMBING", "Plumbing", " plumbing "])(
      "specialty=%j matches the whole specialty, case-insensitively",
      async (specialty) => {
        const res = await list(t.owner, `?specialty=${encodeURIComponent(specialty)}`);
        expect(idsOf(res.items)).toEqual(idsOf([idle, reyes]));
        expect(res.total).toBe(2);
      },
    );

    it("specialty is equality, not a substring", async () => {
      expect((await list(t.owner, "?specialty=plumb")).total).toBe(0);
      expect(idsOf((await list(t.owner, "?specialty=Plumbing%20Repair")).items)).toEqual([ann.id]);
      expect(idsOf((await list(t.owner, "?specialty=electrical")).items)).toEqual([sparks.id]);
    });

    it("combines status and specialty", async () => {
      expect(idsOf((await list(t.owner, "?specialty=plumbing&status=active")).items)).toEqual([reyes.id]);
      expect(idsOf((await list(t.owner, "?specialty=plumbing&status=inactive")).items)).toEqual([idle.id]);
      expect((await list(t.owner, "?specialty=plumbing&status=suspended")).total).toBe(0);
    });

    it.each([
      ["name, any case", "rEYES plum"],
      ["email", "DISPATCH@reyes"],
      ["a skill", "water heat"],
      ["another skill, any case", "DRAINS"],
      ["phone as (555) 010-2000", "(555) 010-2000"],
      ["phone as 555-010-2000", "555-010-2000"],
      ["phone as +15550102000", "+15550102000"],
      ["part of the phone", "010-2000"],
    ])("search matches by %s", async (_label, search) => {
      const res = await list(t.owner, `?search=${encodeURIComponent(search)}`);
      expect(res.items).toEqual([reyes]);
      expect(res.total).toBe(1);
    });

    it("search matches a substring of the specialty, in name order", async () => {
      const res = await list(t.owner, "?search=LUMBIN");
      expect(idsOf(res.items)).toEqual(idsOf([ann, idle, reyes]));
      expect(res.total).toBe(3);
    });

    it("search finds nothing for text in no field; no match spans two fields or two skills; notes are not searched", async () => {
      expect(await list(t.owner, "?search=zzz")).toEqual({ items: [], total: 0, page: 1, page_size: 10 });
      // "Ann" is a name and "lee@" an email of the same provider; "ann lee" is in neither.
      expect((await list(t.owner, `?search=${encodeURIComponent("ann lee")}`)).total).toBe(0);
      // Two skills of one provider, next to each other.
      expect((await list(t.owner, `?search=${encodeURIComponent("heaters drains")}`)).total).toBe(0);
      expect((await list(t.owner, "?search=unique-note-text")).total).toBe(0);
    });

    it("search takes LIKE wildcards literally", async () => {
      expect(idsOf((await list(t.owner, `?search=${encodeURIComponent("100%")}`)).items)).toEqual([sparks.id]);
      expect(idsOf((await list(t.owner, `?search=${encodeURIComponent("gas_")}`)).items)).toEqual([sparks.id]);
      expect((await list(t.owner, `?search=${encodeURIComponent("%%%")}`)).total).toBe(0);
      expect((await list(t.owner, `?search=${encodeURIComponent("r_yes")}`)).total).toBe(0);
    });

    it("search combines with status, specialty and paging", async () => {
      expect(idsOf((await list(t.owner, "?search=plumbing&status=inactive")).items)).toEqual([idle.id]);
      expect(idsOf((await list(t.owner, "?search=555&specialty=plumbing%20repair")).items)).toEqual([ann.id]);
      const page = await list(t.owner, "?search=plumbing&page_size=2&page=2");
      expect(page).toMatchObject({ total: 3, page: 2, page_size: 2 });
      expect(idsOf(page.items)).toEqual([reyes.id]);
    });

    it("a blank search or specialty filters nothing", async () => {
      expect((await list(t.owner, `?search=${encodeURIComponent("   ")}`)).total).toBe(5);
      expect((await list(t.owner, "?specialty=")).total).toBe(5);
    });
  });
});

describe("GET /api/service-providers/{provider_id}", () => {
  it("reads a provider, also by an upper-case id and with a member key", async () => {
    const t = await tenant();
    const provider = await createProvider(t.owner, { name: "Reader", skills: ["a"] });
    const res = await t.owner.get(`${BASE}/${provider.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(provider);
    expect((await t.owner.get(`${BASE}/${provider.id.toUpperCase()}`)).body).toEqual(provider);
    expect((await t.member.get(`${BASE}/${provider.id}`)).body).toEqual(provider);
  });

  it("answers 404 for an unknown id and for another organization's provider", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createProvider(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.get(`${BASE}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.get(`${BASE}/${foreign.id}`), 404);
  });

  it.each(["not-a-uuid", "12345", "00000000-0000-0000-0000-00000000000g"])(
    "answers 422 at path.provider_id for %s",
    async (id) => {
      const t = await tenant();
      const [entry] = expect422(await t.owner.get(`${BASE}/${id}`), [
        { loc: ["path", "provider_id"], type: "uuid_parsing" },
      ]);
      expect(entry).toMatchObject({ input: id });
    },
  );
});

describe("PUT /api/service-providers/{provider_id}", () => {
  const full = {
    name: "Full Provider",
    phone_number: "555-010-5000",
    email: "full@example.com",
    specialty: "Roofing",
    skills: ["shingles", "gutters"],
    status: "active",
    is_on_call: false,
    notes: "first note",
  };

  it("changes only the given fields and answers the whole provider", async () => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    const res = await t.owner.put<Provider>(`${BASE}/${before.id}`, {
      notes: "second note",
      status: "inactive",
      is_on_call: true,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PROVIDER_KEYS);
    expect(res.body).toEqual({
      ...before,
      notes: "second note",
      status: "inactive",
      is_on_call: true,
      updated_at: res.body.updated_at,
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(res.body);
    expect(idsOf((await list(t.owner, "?status=inactive")).items)).toEqual([before.id]);
    expect((await list(t.owner, "?status=active")).total).toBe(0);
  });

  it("normalizes a new phone number, cleans new skills, and search follows the new values", async () => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    const res = await t.owner.put(`${BASE}/${before.id}`, {
      phone_number: "(555) 010-5001",
      skills: [" solar ", "solar", ""],
      name: " Renamed Roofer ",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ phone_number: "+15550105001", skills: ["solar"], name: "Renamed Roofer" });
    expect(idsOf((await list(t.owner, "?search=solar")).items)).toEqual([before.id]);
    expect(idsOf((await list(t.owner, "?search=555-010-5001")).items)).toEqual([before.id]);
    expect((await list(t.owner, "?search=shingles")).total).toBe(0);
    expect((await list(t.owner, "?search=5550105000")).total).toBe(0);
  });

  it("clears optional fields given as null", async () => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    const res = await t.owner.put(`${BASE}/${before.id}`, { phone_number: null, email: null, specialty: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      phone_number: null,
      email: null,
      specialty: null,
      updated_at: res.body.updated_at,
    });
    const cleared = await t.owner.put(`${BASE}/${before.id}`, { skills: null, notes: null });
    expect(cleared.body).toEqual({ ...res.body, skills: [], notes: null, updated_at: cleared.body.updated_at });
    expect((await list(t.owner, "?specialty=roofing")).total).toBe(0);
  });

  it("keeps everything for an empty body", async () => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    const res = await t.owner.put(`${BASE}/${before.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
  });

  it.each([
    [{ name: null }, "name"],
    [{ status: null }, "status"],
    [{ is_on_call: null }, "is_on_call"],
    [{ name: "  " }, "name"],
    [{ status: "retired" }, "status"],
    [{ phone_number: "abc" }, "phone_number"],
    [{ email: "not-an-email" }, "email"],
  ])("answers 422 for %j and changes nothing", async (body, field) => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    expect422(await t.owner.put(`${BASE}/${before.id}`, { ...body, notes: "ignored" }), [{ loc: ["body", field] }]);
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(before);
  });

  it("answers 422 at body.phone_number with value_error for an invalid phone", async () => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    expect422(await t.owner.put(`${BASE}/${before.id}`, { phone_number: "call me" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
    ]);
  });

  it("answers 404 for an unknown id and for another organization's provider, which stays unchanged", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createProvider(other.owner, full);
    expectDetail(await t.owner.put(`${BASE}/${UNKNOWN_ID}`, { name: "Ghost" }), 404);
    expectDetail(await t.owner.put(`${BASE}/${UNKNOWN_ID}`, {}), 404);
    expectDetail(await t.owner.put(`${BASE}/${foreign.id}`, { name: "Hijack", status: "suspended" }), 404);
    expectDetail(await t.owner.put(`${BASE}/${foreign.id}`, {}), 404);
    expect((await other.owner.get(`${BASE}/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 for a malformed id, a malformed body or no body", async () => {
    const t = await tenant();
    const before = await createProvider(t.owner, full);
    expect422(await t.owner.put(`${BASE}/not-a-uuid`, { name: "x" }), [
      { loc: ["path", "provider_id"], type: "uuid_parsing" },
    ]);
    expect422(await t.owner.request("PUT", `${BASE}/${before.id}`, { rawBody: "{name: 1}" }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.request("PUT", `${BASE}/${before.id}`), [{ loc: ["body"] }]);
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(before);
  });
});

describe("DELETE /api/service-providers/{provider_id}", () => {
  it("deletes: 204 without a body, then 404 on read, update and a second delete", async () => {
    const t = await tenant();
    const doomed = await createProvider(t.owner, { name: "Doomed" });
    const keep = await createProvider(t.owner, { name: "Keeper" });
    const res = await t.owner.delete(`${BASE}/${doomed.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectDetail(await t.owner.get(`${BASE}/${doomed.id}`), 404);
    expectDetail(await t.owner.put(`${BASE}/${doomed.id}`, { name: "Back" }), 404);
    expectDetail(await t.owner.delete(`${BASE}/${doomed.id}`), 404);
    expect((await list(t.owner)).items).toEqual([keep]);
  });

  it("accepts an upper-case id, and a member key may delete", async () => {
    const t = await tenant();
    const a = await createProvider(t.owner, { name: "A" });
    const b = await createProvider(t.owner, { name: "B" });
    expect((await t.owner.delete(`${BASE}/${a.id.toUpperCase()}`)).status).toBe(204);
    expect((await t.member.delete(`${BASE}/${b.id}`)).status).toBe(204);
    expect((await list(t.owner)).total).toBe(0);
  });

  it("answers 404 for an unknown id and for another organization's provider, which stays", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createProvider(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.delete(`${BASE}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`${BASE}/${foreign.id}`), 404);
    expect((await other.owner.get(`${BASE}/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 at path.provider_id for a malformed id", async () => {
    const t = await tenant();
    expect422(await t.owner.delete(`${BASE}/nope`), [{ loc: ["path", "provider_id"], type: "uuid_parsing" }]);
  });
});
