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

// HTTP tests of the service-listing routes, through the gateway. Every test (or describe) works
// in its own fresh organization, so counts are exact even though the database outlives the run.

const tenant = tenantFactory();

const LISTING_KEYS = [
  "category",
  "created_at",
  "description",
  "duration_minutes",
  "id",
  "is_active",
  "is_available",
  "name",
  "price_cents",
  "updated_at",
];
const BASE = "/api/service-listings";

interface Listing {
  id: string;
  name: string;
  description: string | null;
  category: string | null;
  price_cents: number | null;
  duration_minutes: number | null;
  is_available: boolean;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

interface ListingList {
  items: Listing[];
  total: number;
  page: number;
  page_size: number;
}

async function createListing(client: ApiClient, body: Record<string, unknown>): Promise<Listing> {
  return expectStatus(await client.post<Listing>(BASE, body), 201);
}

async function list(client: ApiClient, query = ""): Promise<ListingList> {
  return expectStatus(await client.get<ListingList>(`${BASE}${query ? `?${query}` : ""}`), 200);
}

const full = {
  name: "Water Heater Install",
  description: "Remove the old tank and fit a new 40-gallon heater",
  category: "Plumbing",
  price_cents: 129_900,
  duration_minutes: 180,
  is_available: true,
  is_active: true,
};

describe("authentication and isolation", () => {
  it.each([
    ["GET", BASE],
    ["POST", BASE],
    ["GET", `${BASE}/${UNKNOWN_ID}`],
    ["PUT", `${BASE}/${UNKNOWN_ID}`],
    ["DELETE", `${BASE}/${UNKNOWN_ID}`],
  ])("%s %s without a key is 401", async (method, path) => {
    await expect401(anonymousClient(), method, path, { name: "x" });
  });

  it("answers 401 to an unknown key and stores nothing", async () => {
    const t = await tenant();
    const stranger = unknownKeyClient();
    expectDetail(await stranger.get(BASE), 401);
    expectDetail(await stranger.post(BASE, { name: "Nope" }), 401);
    expect((await list(t.owner)).total).toBe(0);
  });

  it("never lists another organization's listings", async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = await createListing(a.owner, { name: "Drain Cleaning" });
    await createListing(b.owner, { name: "Drain Cleaning" });
    expect(await list(a.owner)).toEqual({ items: [mine], total: 1, page: 1, page_size: 50 });
    expect((await list(a.owner, "search=drain")).items).toEqual([mine]);
  });

  it("lets a member key create, update and delete listings", async () => {
    const t = await tenant();
    const created = await createListing(t.member, { name: "Member Made" });
    expect((await t.member.put(`${BASE}/${created.id}`, { price_cents: 500 })).body.price_cents).toBe(500);
    expect((await t.member.delete(`${BASE}/${created.id}`)).status).toBe(204);
  });
});

describe("POST /api/service-listings", () => {
  it("creates a listing with every field and answers 201 with the full record", async () => {
    const t = await tenant();
    const res = await t.owner.post<Listing>(BASE, { ...full, is_available: false });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(LISTING_KEYS);
    expect(res.body).toMatchObject({ ...full, is_available: false });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect(res.body.updated_at).toBe(res.body.created_at);

    const read = await t.owner.get(`${BASE}/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("defaults is_available and is_active to true and shows unset fields as null", async () => {
    const t = await tenant();
    const listing = await createListing(t.owner, { name: "Only Name" });
    expect(listing).toEqual({
      id: listing.id,
      name: "Only Name",
      description: null,
      category: null,
      price_cents: null,
      duration_minutes: null,
      is_available: true,
      is_active: true,
      created_at: listing.created_at,
      updated_at: listing.created_at,
    });
  });

  it("stores both flags false when asked", async () => {
    const t = await tenant();
    expect(await createListing(t.owner, { name: "Retired", is_available: false, is_active: false })).toMatchObject({
      is_available: false,
      is_active: false,
    });
  });

  it("trims the name and stores blank optional text as null", async () => {
    const t = await tenant();
    expect(await createListing(t.owner, { name: "  Gutter Repair  ", description: "   ", category: "" })).toMatchObject(
      {
        name: "Gutter Repair",
        description: null,
        category: null,
      },
    );
  });

  it("accepts zero price and duration, and a price beyond 32 bits", async () => {
    const t = await tenant();
    expect(await createListing(t.owner, { name: "Free Estimate", price_cents: 0, duration_minutes: 0 })).toMatchObject({
      price_cents: 0,
      duration_minutes: 0,
    });
    expect(
      (await createListing(t.owner, { name: "Whole House Repipe", price_cents: 12_345_678_901 })).price_cents,
    ).toBe(12_345_678_901);
  });

  it("ignores unknown body fields", async () => {
    const t = await tenant();
    const res = await t.owner.post(BASE, { name: "Extra", colour: "blue", id: UNKNOWN_ID });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(UNKNOWN_ID);
    expect(res.body).not.toHaveProperty("colour");
  });

  it.each([
    ["no name", {}, "missing"],
    ["a null name", { name: null }, "missing"],
    ["an empty name", { name: "" }, undefined],
    ["a blank name", { name: "   " }, undefined],
  ])("answers 422 at body.name for %s and stores nothing", async (_label, body, type) => {
    const t = await tenant();
    expect422(await t.owner.post(BASE, { description: "d", ...body }), [{ loc: ["body", "name"], type }]);
    expect((await list(t.owner)).total).toBe(0);
  });

  it("answers 422 at body.price_cents for a negative price and stores nothing", async () => {
    const t = await tenant();
    expect422(await t.owner.post(BASE, { name: "Negative", price_cents: -1 }), [
      { loc: ["body", "price_cents"], type: "greater_than_equal" },
    ]);
    expect((await list(t.owner)).total).toBe(0);
  });

  it("answers 422 at body.duration_minutes for a negative or too long duration", async () => {
    const t = await tenant();
    expect422(await t.owner.post(BASE, { name: "Negative", duration_minutes: -5 }), [
      { loc: ["body", "duration_minutes"], type: "greater_than_equal" },
    ]);
    expect422(await t.owner.post(BASE, { name: "Endless", duration_minutes: 100_001 }), [
      { loc: ["body", "duration_minutes"], type: "less_than_equal" },
    ]);
    expect((await list(t.owner)).total).toBe(0);
  });

  it("reports every failing field at once", async () => {
    const t = await tenant();
    expect422(
      await t.owner.post(BASE, {
        name: 5,
        description: "d".repeat(5001),
        category: "c".repeat(101),
        price_cents: "abc",
        duration_minutes: 1.5,
        is_available: "maybe",
        is_active: [],
      }),
      [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "description"], type: "string_too_long" },
        { loc: ["body", "category"], type: "string_too_long" },
        { loc: ["body", "price_cents"], type: "int_parsing" },
        { loc: ["body", "duration_minutes"], type: "int_from_float" },
        { loc: ["body", "is_available"], type: "bool_parsing" },
        { loc: ["body", "is_active"] },
      ],
    );
    expect((await list(t.owner)).total).toBe(0);
  });

  it("answers 422 for a malformed JSON body or a body that is not an object", async () => {
    const t = await tenant();
    expect422(await t.owner.request("POST", BASE, { rawBody: '{"name": "Broken",' }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.request("POST", BASE), [{ loc: ["body"] }]);
    // Not an object: one entry at body, not a second "missing" for the required name.
    expect422(await t.owner.post(BASE, ["Drain Cleaning"]), [{ loc: ["body"], type: "model_attributes_type" }]);
    expect((await list(t.owner)).total).toBe(0);
  });
});

describe("GET /api/service-listings", () => {
  it("answers {items, total, page, page_size} with the defaults page 1 and page_size 50", async () => {
    const t = await tenant();
    const created = await createListing(t.owner, full);
    const res = await t.owner.get(BASE);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["items", "page", "page_size", "total"]);
    expect(res.body).toEqual({ items: [created], total: 1, page: 1, page_size: 50 });
  });

  it("returns an empty page for a fresh organization", async () => {
    const t = await tenant();
    expect(await list(t.owner)).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
  });

  it("caps the default page at 50 and counts every match in total", async () => {
    const t = await tenant();
    for (let i = 0; i < 52; i++) await createListing(t.owner, { name: `Service ${String(i).padStart(2, "0")}` });
    const first = await list(t.owner);
    expect(first.items).toHaveLength(50);
    expect(first.total).toBe(52);
    expect(namesOf((await list(t.owner, "page=2")).items)).toEqual(["Service 50", "Service 51"]);
  });

  it("pages without overlap; a page past the end is empty with the true total", async () => {
    const t = await tenant();
    for (const name of ["Eaves", "Attic", "Deck", "Boiler", "Chimney"]) await createListing(t.owner, { name });
    const pages = [];
    for (const page of [1, 2, 3]) {
      const body = await list(t.owner, `page=${page}&page_size=2`);
      expect(body).toMatchObject({ total: 5, page, page_size: 2 });
      pages.push(namesOf(body.items));
    }
    expect(pages).toEqual([["Attic", "Boiler"], ["Chimney", "Deck"], ["Eaves"]]);
    expect(await list(t.owner, "page=4&page_size=2")).toEqual({ items: [], total: 5, page: 4, page_size: 2 });
    expect(await list(t.owner, "page=1000")).toEqual({ items: [], total: 5, page: 1000, page_size: 50 });
  });

  it("accepts the bounds page_size=1 and page_size=100", async () => {
    const t = await tenant();
    for (const name of ["A1", "A2"]) await createListing(t.owner, { name });
    expect(await list(t.owner, "page_size=1")).toMatchObject({ total: 2, page_size: 1, items: [{ name: "A1" }] });
    expect((await list(t.owner, "page_size=100")).items).toHaveLength(2);
  });

  it("orders by name A→Z, case-insensitive, ties by id, the same across pages", async () => {
    const t = await tenant();
    const created: Listing[] = [];
    for (const name of ["bravo", "Alpha", "charlie", "ALPHA", "Delta"])
      created.push(await createListing(t.owner, { name }));
    const [bravo, alpha, charlie, upperAlpha, delta] = created as [Listing, Listing, Listing, Listing, Listing];
    const tied = [alpha, upperAlpha].sort((a, b) => (a.id < b.id ? -1 : 1));
    const expected = idsOf([...tied, bravo, charlie, delta]);
    expect(idsOf((await list(t.owner)).items)).toEqual(expected);
    const paged = [];
    for (const page of [1, 2, 3]) paged.push(...idsOf((await list(t.owner, `page=${page}&page_size=2`)).items));
    expect(paged).toEqual(expected);
  });

  describe("filters", () => {
    let t: Tenant;
    beforeAll(async () => {
      t = await tenant();
      for (const [name, is_available, is_active] of [
        ["Both On", true, true],
        ["Busy", false, true],
        ["Dormant", true, false],
        ["Off", false, false],
        ["Also On", true, true],
      ] as const) {
        await createListing(t.owner, { name, is_available, is_active });
      }
    });

    it.each([
      ["", ["Also On", "Both On", "Busy", "Dormant", "Off"]],
      ["is_available=true", ["Also On", "Both On", "Dormant"]],
      ["is_available=false", ["Busy", "Off"]],
      ["is_active=true", ["Also On", "Both On", "Busy"]],
      ["is_active=false", ["Dormant", "Off"]],
      ["is_available=true&is_active=true", ["Also On", "Both On"]],
      ["is_available=false&is_active=true", ["Busy"]],
      ["is_available=true&is_active=false", ["Dormant"]],
      ["is_available=false&is_active=false", ["Off"]],
    ])("%s lists exactly the matching listings", async (query, expected) => {
      const body = await list(t.owner, query);
      expect(namesOf(body.items)).toEqual(expected);
      expect(body.total).toBe(expected.length);
    });

    it("counts the filtered total across pages", async () => {
      const body = await list(t.owner, "is_available=true&page_size=1&page=2");
      expect(body).toMatchObject({ total: 3, page: 2, page_size: 1 });
      expect(namesOf(body.items)).toEqual(["Both On"]);
    });

    it("follows an update out of and into a filter", async () => {
      const own = await tenant();
      const listing = await createListing(own.owner, { name: "Mover" });
      expect((await list(own.owner, "is_active=true")).total).toBe(1);
      expect((await own.owner.put(`${BASE}/${listing.id}`, { is_active: false })).status).toBe(200);
      expect((await list(own.owner, "is_active=true")).total).toBe(0);
      expect(namesOf((await list(own.owner, "is_active=false")).items)).toEqual(["Mover"]);
    });
  });

  describe("search", () => {
    let t: Tenant;
    let heater: Listing;
    beforeAll(async () => {
      t = await tenant();
      heater = await createListing(t.owner, {
        name: "Water Heater Install",
        description: "Tankless or tank, gas or electric",
        category: "Plumbing",
      });
      await createListing(t.owner, { name: "Roof", description: "Shingle repair", category: "Exterior" });
      await createListing(t.owner, { name: "100% Satisfaction Check", category: "General" });
      await createListing(t.owner, { name: "Unavailable Plumbing Audit", category: "Plumbing", is_available: false });
    });

    it.each([
      ["name, any case", "wATER heat"],
      ["description", "TANKLESS"],
      ["description, mid-word", "lectri"],
    ])("matches by %s", async (_label, search) => {
      const body = await list(t.owner, `search=${encodeURIComponent(search)}`);
      expect(body.items).toEqual([heater]);
      expect(body.total).toBe(1);
    });

    it("matches by category and combines with the filters", async () => {
      expect(namesOf((await list(t.owner, "search=plumb")).items)).toEqual([
        "Unavailable Plumbing Audit",
        "Water Heater Install",
      ]);
      expect(namesOf((await list(t.owner, "search=plumb&is_available=true")).items)).toEqual(["Water Heater Install"]);
      expect(namesOf((await list(t.owner, "search=plumb&is_available=false")).items)).toEqual([
        "Unavailable Plumbing Audit",
      ]);
      expect((await list(t.owner, "search=plumb&is_active=false")).total).toBe(0);
    });

    it("finds nothing for text in no field, and no match spans two fields", async () => {
      expect(await list(t.owner, "search=zzz")).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
      // "Roof" is a name and "Shingle" a description of the same listing; "roof shingle" is in neither.
      expect((await list(t.owner, `search=${encodeURIComponent("roof shingle")}`)).total).toBe(0);
    });

    it("takes LIKE wildcards literally", async () => {
      expect(namesOf((await list(t.owner, `search=${encodeURIComponent("%")}`)).items)).toEqual([
        "100% Satisfaction Check",
      ]);
      expect((await list(t.owner, `search=${encodeURIComponent("_")}`)).total).toBe(0);
    });

    it("pages through the matches with the true total", async () => {
      const body = await list(t.owner, "search=e&page_size=1&page=2");
      expect(body.total).toBe(4);
      expect(namesOf(body.items)).toEqual(["Roof"]);
    });

    it("treats a blank search as no search", async () => {
      expect((await list(t.owner, `search=${encodeURIComponent("   ")}`)).total).toBe(4);
    });
  });

  it.each([
    ["page_size=0", "page_size", "greater_than_equal"],
    ["page_size=101", "page_size", "less_than_equal"],
    ["page_size=abc", "page_size", "int_parsing"],
    ["page=0", "page", "greater_than_equal"],
    ["page=x", "page", "int_parsing"],
    ["is_available=maybe", "is_available", "bool_parsing"],
    ["is_active=sometimes", "is_active", "bool_parsing"],
  ])("rejects %s with 422", async (query, field, type) => {
    const t = await tenant();
    const [entry] = expect422(await t.owner.get(`${BASE}?${query}`), [{ loc: ["query", field], type }]);
    expect(entry).toHaveProperty("input");
  });

  it("reports every bad query parameter at once", async () => {
    const t = await tenant();
    expect422(
      await t.owner.get(`${BASE}?page=0&page_size=101&is_available=maybe&is_active=2&search=${"s".repeat(201)}`),
      [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "page_size"], type: "less_than_equal" },
        { loc: ["query", "is_available"], type: "bool_parsing" },
        { loc: ["query", "is_active"], type: "bool_parsing" },
        { loc: ["query", "search"], type: "string_too_long" },
      ],
    );
  });
});

describe("GET /api/service-listings/{listing_id}", () => {
  it("reads a listing, with the id in any case", async () => {
    const t = await tenant();
    const listing = await createListing(t.owner, full);
    const res = await t.owner.get(`${BASE}/${listing.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(listing);
    expect((await t.member.get(`${BASE}/${listing.id}`)).body).toEqual(listing);
    expect((await t.owner.get(`${BASE}/${listing.id.toUpperCase()}`)).body).toEqual(listing);
  });

  it("answers 404 for an unknown id and for another organization's listing", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createListing(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.get(`${BASE}/${UNKNOWN_ID}`), 404);
    expect(expectDetail(await t.owner.get(`${BASE}/${foreign.id}`), 404)).toBe("Service listing not found");
  });

  it.each(["not-a-uuid", "12345", "00000000-0000-0000-0000-00000000000g"])(
    "answers 422 at path.listing_id for %s",
    async (id) => {
      const t = await tenant();
      const [entry] = expect422(await t.owner.get(`${BASE}/${id}`), [
        { loc: ["path", "listing_id"], type: "uuid_parsing" },
      ]);
      expect(entry).toMatchObject({ input: id });
    },
  );
});

describe("PUT /api/service-listings/{listing_id}", () => {
  it("changes only the given fields and answers the whole listing", async () => {
    const t = await tenant();
    const before = await createListing(t.owner, full);
    const res = await t.owner.put<Listing>(`${BASE}/${before.id}`, { price_cents: 149_900, is_available: false });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(LISTING_KEYS);
    expect(res.body).toEqual({ ...before, price_cents: 149_900, is_available: false, updated_at: res.body.updated_at });
    expect(res.body.updated_at).toMatch(RFC3339_UTC);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(res.body);
  });

  it("renames (trimmed) and sets fields that were empty", async () => {
    const t = await tenant();
    const before = await createListing(t.owner, { name: "Bare" });
    const res = await t.owner.put(`${BASE}/${before.id}`, {
      name: "  Furnished  ",
      description: "Now described",
      category: "HVAC",
      duration_minutes: 45,
      is_active: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Furnished",
      description: "Now described",
      category: "HVAC",
      duration_minutes: 45,
      price_cents: null,
      is_available: true,
      is_active: false,
    });
  });

  it("clears optional fields given as null, or blank text, and keeps the rest", async () => {
    const t = await tenant();
    const before = await createListing(t.owner, full);
    const res = await t.owner.put(`${BASE}/${before.id}`, {
      description: null,
      price_cents: null,
      duration_minutes: null,
      category: "  ",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      description: null,
      category: null,
      price_cents: null,
      duration_minutes: null,
      updated_at: res.body.updated_at,
    });
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(res.body);
  });

  it("keeps everything, updated_at included, for an empty body", async () => {
    const t = await tenant();
    const before = await createListing(t.owner, full);
    const res = await t.owner.put(`${BASE}/${before.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
    expect((await t.owner.put(`${BASE}/${before.id}`, { unknown_field: 1 })).body).toEqual(before);
  });

  it.each([
    ["a null name", { name: null }, ["body", "name"]],
    ["a blank name", { name: "  " }, ["body", "name"]],
    ["a null is_available", { is_available: null }, ["body", "is_available"]],
    ["a null is_active", { is_active: null }, ["body", "is_active"]],
    ["a negative price", { price_cents: -100 }, ["body", "price_cents"]],
    ["a negative duration", { duration_minutes: -1 }, ["body", "duration_minutes"]],
  ])("answers 422 for %s and changes nothing", async (_label, body, loc) => {
    const t = await tenant();
    const before = await createListing(t.owner, full);
    expect422(await t.owner.put(`${BASE}/${before.id}`, { ...body, description: "ignored" }), [{ loc }]);
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(before);
  });

  it("reports every bad field at once", async () => {
    const t = await tenant();
    const before = await createListing(t.owner, full);
    expect422(
      await t.owner.put(`${BASE}/${before.id}`, {
        name: 1,
        price_cents: -1,
        is_available: "perhaps",
        category: "c".repeat(101),
      }),
      [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "price_cents"], type: "greater_than_equal" },
        { loc: ["body", "is_available"], type: "bool_parsing" },
        { loc: ["body", "category"], type: "string_too_long" },
      ],
    );
  });

  it("answers 404 for an unknown id and for another organization's listing, which stays", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createListing(other.owner, full);
    expectDetail(await t.owner.put(`${BASE}/${UNKNOWN_ID}`, { name: "Ghost" }), 404);
    expectDetail(await t.owner.put(`${BASE}/${foreign.id}`, { name: "Hijack", price_cents: 1 }), 404);
    expectDetail(await t.owner.put(`${BASE}/${foreign.id}`, {}), 404);
    expect((await other.owner.get(`${BASE}/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 for a malformed id, a malformed body or no body", async () => {
    const t = await tenant();
    const before = await createListing(t.owner, full);
    expect422(await t.owner.put(`${BASE}/not-a-uuid`, { name: "x" }), [
      { loc: ["path", "listing_id"], type: "uuid_parsing" },
    ]);
    expect422(await t.owner.request("PUT", `${BASE}/${before.id}`, { rawBody: "{name: 1}" }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.request("PUT", `${BASE}/${before.id}`), [{ loc: ["body"] }]);
    expect((await t.owner.get(`${BASE}/${before.id}`)).body).toEqual(before);
  });
});

describe("DELETE /api/service-listings/{listing_id}", () => {
  it("deletes: 204 without a body, then 404, and the others stay", async () => {
    const t = await tenant();
    const doomed = await createListing(t.owner, { name: "Doomed" });
    const keep = await createListing(t.owner, { name: "Keeper" });
    const res = await t.owner.delete(`${BASE}/${doomed.id.toUpperCase()}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectDetail(await t.owner.get(`${BASE}/${doomed.id}`), 404);
    expectDetail(await t.owner.delete(`${BASE}/${doomed.id}`), 404);
    expectDetail(await t.owner.put(`${BASE}/${doomed.id}`, { name: "Back" }), 404);
    expect(await list(t.owner)).toEqual({ items: [keep], total: 1, page: 1, page_size: 50 });
  });

  it("answers 404 for an unknown id and for another organization's listing, which stays", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createListing(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.delete(`${BASE}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`${BASE}/${foreign.id}`), 404);
    expect((await other.owner.get(`${BASE}/${foreign.id}`)).body).toEqual(foreign);
  });

  it("answers 422 at path.listing_id for a malformed id", async () => {
    const t = await tenant();
    expect422(await t.owner.delete(`${BASE}/nope`), [{ loc: ["path", "listing_id"], type: "uuid_parsing" }]);
  });
});
