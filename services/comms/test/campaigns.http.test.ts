import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  tenantFactory,
  UNKNOWN_ID,
  unknownKeyClient,
  UUID_PATTERN,
  type ApiClient,
} from "@voiceops/platform/testing";

// HTTP tests of the campaign routes, through the gateway. The shared test system runs the
// scheduler on the real clock, so these campaigns call only on a weekday three days ahead: no
// call is made while a test runs, and counts stay where the routes put them. The scheduler's
// own behaviour is tested on a manual clock (scheduler.test.ts, campaign-run.test.ts).

const ZONE = "America/Chicago";
const tenant = tenantFactory({ timezone: ZONE });

/** A weekday on which no call happens during the test: three days ahead in the org's zone. */
const QUIET_DAY = DateTime.now().setZone(ZONE).plus({ days: 3 }).toFormat("ccc").toLowerCase();

const CAMPAIGN_KEYS = [
  "agent_prompt",
  "calling_window",
  "completed_at",
  "counts",
  "created_at",
  "id",
  "max_attempts",
  "max_concurrent_calls",
  "name",
  "retry_delay_minutes",
  "started_at",
  "status",
  "timezone",
  "updated_at",
];

const CONTACT_KEYS = [
  "attempts",
  "campaign_id",
  "contact_id",
  "created_at",
  "disposition",
  "email",
  "id",
  "last_attempt_at",
  "last_session_id",
  "name",
  "next_attempt_at",
  "phone_number",
  "status",
  "timezone",
  "updated_at",
  "variables",
];

interface Campaign {
  id: string;
  name: string;
  status: string;
  calling_window: { start: string; end: string; days: string[] };
  counts: Record<string, number>;
  started_at: string | null;
  completed_at: string | null;
  [key: string]: unknown;
}

async function createCampaign(client: ApiClient, body: Record<string, unknown> = {}): Promise<Campaign> {
  return expectStatus(
    await client.post<Campaign>("/api/campaigns", {
      name: "Spring tune-ups",
      calling_window: { days: [QUIET_DAY] },
      ...body,
    }),
    201,
  );
}

async function addRows(client: ApiClient, id: string, contacts: Record<string, unknown>[]) {
  return expectStatus(await client.post(`/api/campaigns/${id}/contacts/upload`, { contacts }), 200);
}

const rows = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    phone_number: `+1555020${String(from + i).padStart(4, "0")}`,
    name: `Person ${from + i}`,
  }));

describe("authentication", () => {
  it.each([
    ["GET", "/api/campaigns"],
    ["POST", "/api/campaigns"],
    ["GET", `/api/campaigns/${UNKNOWN_ID}`],
    ["POST", `/api/campaigns/${UNKNOWN_ID}/start`],
    ["POST", `/api/campaigns/${UNKNOWN_ID}/pause`],
    ["POST", `/api/campaigns/${UNKNOWN_ID}/cancel`],
    ["POST", `/api/campaigns/${UNKNOWN_ID}/contacts/upload`],
    ["GET", `/api/campaigns/${UNKNOWN_ID}/contacts`],
  ])("%s %s is 401 without a key and with an unknown key", async (method, path) => {
    await expect401(anonymousClient(), method, path, { name: "x" });
    await expect401(unknownKeyClient(), method, path, { name: "x" });
  });
});

describe("POST /api/campaigns", () => {
  it("creates a draft with the documented defaults (201)", async () => {
    const t = await tenant();
    const res = await t.member.post<Campaign>("/api/campaigns", {
      name: "  Quote follow-ups ",
      agent_prompt: "Ask about the quote.",
    });
    const campaign = expectStatus(res, 201);
    expect(Object.keys(campaign).sort()).toEqual(CAMPAIGN_KEYS);
    expect(campaign).toMatchObject({
      name: "Quote follow-ups",
      agent_prompt: "Ask about the quote.",
      status: "draft",
      calling_window: { start: "09:00", end: "20:00", days: ["mon", "tue", "wed", "thu", "fri", "sat"] },
      max_attempts: 3,
      retry_delay_minutes: 60,
      max_concurrent_calls: 2,
      counts: { pending: 0, queued: 0, dialing: 0, completed: 0, failed: 0, skipped_dnc: 0, cancelled: 0, total: 0 },
      started_at: null,
      completed_at: null,
      timezone: ZONE,
    });
    expect(campaign.id).toMatch(UUID_PATTERN);
    expectRecent(campaign.created_at as string);
  });

  it("clamps the calling window to 08:00..21:00 and keeps the days in week order", async () => {
    const t = await tenant();
    const campaign = await createCampaign(t.owner, {
      calling_window: { start: "06:30", end: "23:59", days: ["sun", "mon", "sun"] },
      max_attempts: 10,
      retry_delay_minutes: 5,
      max_concurrent_calls: 50,
    });
    expect(campaign.calling_window).toEqual({ start: "08:00", end: "21:00", days: ["mon", "sun"] });
    expect(campaign).toMatchObject({ max_attempts: 10, retry_delay_minutes: 5, max_concurrent_calls: 50 });
    const partial = await createCampaign(t.owner, { calling_window: { start: "10:15" } });
    expect(partial.calling_window).toEqual({
      start: "10:15",
      end: "20:00",
      days: ["mon", "tue", "wed", "thu", "fri", "sat"],
    });
    const got = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200);
    expect(got.calling_window).toEqual({ start: "08:00", end: "21:00", days: ["mon", "sun"] });
  });

  it("answers 422 naming every bad field, and stores nothing", async () => {
    const t = await tenant();
    expect422(await t.owner.post("/api/campaigns", {}), [{ loc: ["body", "name"], type: "missing" }]);
    expect422(await t.owner.post("/api/campaigns", { name: "   " }), [
      { loc: ["body", "name"], type: "string_too_short" },
    ]);
    expect422(
      await t.owner.post("/api/campaigns", {
        name: "x",
        max_attempts: 0,
        retry_delay_minutes: 10081,
        max_concurrent_calls: 51,
      }),
      [
        { loc: ["body", "max_attempts"], type: "greater_than_equal" },
        { loc: ["body", "retry_delay_minutes"], type: "less_than_equal" },
        { loc: ["body", "max_concurrent_calls"], type: "less_than_equal" },
      ],
    );
    expect422(
      await t.owner.post("/api/campaigns", {
        name: "x",
        max_attempts: 11,
        retry_delay_minutes: 4,
        max_concurrent_calls: 0,
      }),
      [
        { loc: ["body", "max_attempts"], type: "less_than_equal" },
        { loc: ["body", "retry_delay_minutes"], type: "greater_than_equal" },
        { loc: ["body", "max_concurrent_calls"], type: "greater_than_equal" },
      ],
    );
    expect422(await t.owner.post("/api/campaigns", { name: "x", max_attempts: "three", max_concurrent_calls: null }), [
      { loc: ["body", "max_attempts"], type: "int_parsing" },
      { loc: ["body", "max_concurrent_calls"] },
    ]);
    expect422(await t.owner.post("/api/campaigns", { name: "x", calling_window: { start: "9am", end: "25:00" } }), [
      { loc: ["body", "calling_window", "start"], type: "value_error" },
      { loc: ["body", "calling_window", "end"], type: "value_error" },
    ]);
    expect422(await t.owner.post("/api/campaigns", { name: "x", calling_window: { start: "21:30", end: "23:00" } }), [
      { loc: ["body", "calling_window"], type: "value_error" },
    ]);
    expect422(await t.owner.post("/api/campaigns", { name: "x", calling_window: { days: ["monday"] } }), [
      { loc: ["body", "calling_window", "days", 0], type: "enum" },
    ]);
    expect422(await t.owner.post("/api/campaigns", { name: "x", calling_window: "always" }), [
      { loc: ["body", "calling_window"] },
    ]);
    expect422(await t.owner.post("/api/campaigns", { name: "x".repeat(201) }), [
      { loc: ["body", "name"], type: "string_too_long" },
    ]);
    expect(expectStatus(await t.owner.get("/api/campaigns"), 200).total).toBe(0);
  });
});

describe("GET /api/campaigns and /api/campaigns/{id}", () => {
  it("lists newest first with paging and a status filter; another org's campaign is 404", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const a = await createCampaign(t.owner, { name: "A" });
    const b = await createCampaign(t.owner, { name: "B" });
    const foreign = await createCampaign(other.owner, { name: "Foreign" });
    const list = expectStatus(await t.owner.get("/api/campaigns"), 200);
    expect(list).toMatchObject({ total: 2, page: 1, page_size: 50 });
    expect(list.items.map((c: Campaign) => c.name)).toEqual(["B", "A"]);
    expect(
      expectStatus(await t.owner.get("/api/campaigns?page_size=1&page=2"), 200).items.map((c: Campaign) => c.id),
    ).toEqual([a.id]);
    expect(expectStatus(await t.owner.get("/api/campaigns?status=running"), 200).total).toBe(0);
    expect(expectStatus(await t.owner.get("/api/campaigns?status=draft"), 200).total).toBe(2);
    expect(expectStatus(await t.owner.get(`/api/campaigns/${b.id}`), 200).name).toBe("B");
    expectDetail(await t.owner.get(`/api/campaigns/${foreign.id}`), 404);
    expectDetail(await t.owner.get(`/api/campaigns/${UNKNOWN_ID}`), 404);
    expect422(await t.owner.get("/api/campaigns/not-a-uuid"), [{ loc: ["path", "campaign_id"], type: "uuid_parsing" }]);
    expect422(await t.owner.get("/api/campaigns?status=done&page_size=0"), [
      { loc: ["query", "page_size"], type: "greater_than_equal" },
      { loc: ["query", "status"], type: "enum" },
    ]);
  });
});

describe("POST /api/campaigns/{id}/contacts/upload (JSON)", () => {
  it("imports rows, counting duplicates, invalid rows by position and numbers on the do-not-call list", async () => {
    const t = await tenant();
    await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550209999"] });
    const campaign = await createCampaign(t.owner);
    const result = await addRows(t.owner, campaign.id, [
      {
        phone_number: "(555) 020-0001",
        name: "Ann",
        email: "ann@example.com",
        variables: { quote: "Q-17", amount: 250 },
      },
      { phone_number: "+15550200001", name: "Ann again" },
      { phone_number: "not a phone" },
      { name: "No phone" },
      { phone_number: "+15550200002", email: "nope" },
      { phone_number: "+15550200003", timezone: "Mars/Olympus" },
      { phone_number: "+15550200004", contact_id: "123" },
      { phone_number: "+15550209999", name: "Listed" },
      { phone_number: "+15550200005", timezone: "America/Los_Angeles", contact_id: UNKNOWN_ID },
    ]);
    expect(result).toEqual({
      imported: 2,
      duplicates: 1,
      on_dnc: 1,
      invalid: [
        { row: 3, reason: "not a valid phone number: not a phone" },
        { row: 4, reason: "phone_number is required" },
        { row: 5, reason: "not a valid email address" },
        { row: 6, reason: "timezone is not a valid IANA time zone name" },
        { row: 7, reason: "contact_id is not a valid UUID" },
      ],
    });
    const again = await addRows(t.owner, campaign.id, [
      { phone_number: "+15550200001" },
      { phone_number: "+15550200006" },
    ]);
    expect(again).toEqual({ imported: 1, duplicates: 1, on_dnc: 0, invalid: [] });
    const contacts = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}/contacts`), 200);
    expect(contacts).toMatchObject({ total: 4, page: 1, page_size: 50 });
    expect(Object.keys(contacts.items[0]).sort()).toEqual(CONTACT_KEYS);
    expect(contacts.items[0]).toMatchObject({
      phone_number: "+15550200001",
      name: "Ann",
      email: "ann@example.com",
      status: "pending",
      attempts: 0,
      last_attempt_at: null,
      next_attempt_at: null,
      disposition: null,
      last_session_id: null,
      variables: { quote: "Q-17", amount: 250 },
      campaign_id: campaign.id,
    });
    expect(contacts.items.map((c: { phone_number: string; status: string }) => [c.phone_number, c.status])).toEqual([
      ["+15550200001", "pending"],
      ["+15550209999", "skipped_dnc"],
      ["+15550200005", "pending"],
      ["+15550200006", "pending"],
    ]);
    expect(contacts.items[2]).toMatchObject({ timezone: "America/Los_Angeles", contact_id: UNKNOWN_ID });
    const skipped = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}/contacts?status=skipped_dnc`), 200);
    expect(skipped.items.map((c: { name: string }) => c.name)).toEqual(["Listed"]);
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts).toEqual({
      pending: 3,
      queued: 0,
      dialing: 0,
      completed: 0,
      failed: 0,
      skipped_dnc: 1,
      cancelled: 0,
      total: 4,
    });
    const paged = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}/contacts?page=2&page_size=3`), 200);
    expect(paged.items.map((c: { phone_number: string }) => c.phone_number)).toEqual(["+15550200006"]);
  });

  it("adds CRM contacts by id with their number and name; unknown ids and contacts without a number are invalid rows", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const jane = expectStatus(
      await t.owner.post("/api/contacts", {
        name: "Jane Roe",
        phone_number: "555-020-1000",
        email: "jane@example.com",
      }),
      201,
    );
    const nophone = expectStatus(await t.owner.post("/api/contacts", { name: "No Phone" }), 201);
    const foreign = expectStatus(
      await other.owner.post("/api/contacts", { name: "Foreign", phone_number: "555-020-1001" }),
      201,
    );
    const campaign = await createCampaign(t.owner);
    const result = await expectStatus(
      await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, {
        contact_ids: [jane.id, nophone.id, foreign.id, UNKNOWN_ID, jane.id],
      }),
      200,
    );
    expect(result).toEqual({
      imported: 1,
      duplicates: 1,
      on_dnc: 0,
      invalid: [
        { row: 2, reason: "contact has no phone number" },
        { row: 3, reason: "contact not found" },
        { row: 4, reason: "contact not found" },
      ],
    });
    const contacts = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}/contacts`), 200);
    expect(contacts.items).toHaveLength(1);
    expect(contacts.items[0]).toMatchObject({
      contact_id: jane.id,
      phone_number: "+15550201000",
      name: "Jane Roe",
      email: "jane@example.com",
    });
  });

  it("answers 404 for another org's campaign, 422 for bad input, 409 once completed or cancelled", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const foreign = await createCampaign(other.owner);
    expectDetail(await t.owner.post(`/api/campaigns/${foreign.id}/contacts/upload`, { contacts: rows(1) }), 404);
    const campaign = await createCampaign(t.owner);
    expect422(await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, {}), [
      { loc: ["body", "contact_ids"], type: "missing" },
    ]);
    expect422(
      await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, { contact_ids: ["nope", UNKNOWN_ID] }),
      [{ loc: ["body", "contact_ids", 0], type: "uuid_parsing" }],
    );
    expect422(
      await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, {
        contact_ids: [UNKNOWN_ID],
        contacts: rows(1),
      }),
      [{ loc: ["body"] }],
    );
    expect422(
      await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, { contacts: [{ phone_number: 5550100 }] }),
      [{ loc: ["body", "contacts", 0, "phone_number"], type: "string_type" }],
    );
    expect422(
      await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, {
        contacts: [{ phone_number: "+15550100", variables: [1] }],
      }),
      [{ loc: ["body", "contacts", 0, "variables"] }],
    );
    expect422(await t.owner.post("/api/campaigns/bad/contacts/upload", { contacts: rows(1) }), [
      { loc: ["path", "campaign_id"], type: "uuid_parsing" },
    ]);
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts.total).toBe(0);
    expectStatus(await t.owner.post(`/api/campaigns/${campaign.id}/cancel`), 200);
    expectDetail(await t.owner.post(`/api/campaigns/${campaign.id}/contacts/upload`, { contacts: rows(1) }), 409);
  });
});

describe("start, pause, cancel", () => {
  it("moves draft -> running -> paused -> running -> cancelled, and refuses other moves with 409", async () => {
    const t = await tenant();
    const campaign = await createCampaign(t.owner);
    expect(expectDetail(await t.owner.post(`/api/campaigns/${campaign.id}/start`), 409)).toMatch(/no contacts/);
    expectDetail(await t.owner.post(`/api/campaigns/${campaign.id}/pause`), 409);
    await addRows(t.owner, campaign.id, rows(3));
    const running = expectStatus(await t.owner.post<Campaign>(`/api/campaigns/${campaign.id}/start`), 200);
    expect(running).toMatchObject({ status: "running", completed_at: null });
    expectRecent(running.started_at);
    expectDetail(await t.owner.post(`/api/campaigns/${campaign.id}/start`), 409);
    const paused = expectStatus(await t.owner.post<Campaign>(`/api/campaigns/${campaign.id}/pause`), 200);
    expect(paused).toMatchObject({ status: "paused", started_at: running.started_at });
    expect(paused.counts).toMatchObject({ pending: 3, total: 3 });
    expectDetail(await t.owner.post(`/api/campaigns/${campaign.id}/pause`), 409);
    expect(expectStatus(await t.owner.post<Campaign>(`/api/campaigns/${campaign.id}/start`), 200)).toMatchObject({
      status: "running",
      started_at: running.started_at,
    });
    const cancelled = expectStatus(await t.owner.post<Campaign>(`/api/campaigns/${campaign.id}/cancel`), 200);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.counts).toMatchObject({ pending: 0, cancelled: 3, total: 3 });
    for (const action of ["start", "pause", "cancel"])
      expectDetail(await t.owner.post(`/api/campaigns/${campaign.id}/${action}`), 409);
    const contacts = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}/contacts?status=cancelled`), 200);
    expect(contacts.total).toBe(3);
  });

  it("cancels a draft; another org's campaign is 404 for every action", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const mine = await createCampaign(t.owner);
    expect(expectStatus(await t.owner.post<Campaign>(`/api/campaigns/${mine.id}/cancel`), 200).status).toBe(
      "cancelled",
    );
    const foreign = await createCampaign(other.owner);
    await addRows(other.owner, foreign.id, rows(1));
    for (const action of ["start", "pause", "cancel"]) {
      expectDetail(await t.owner.post(`/api/campaigns/${foreign.id}/${action}`), 404);
      expect422(await t.owner.post(`/api/campaigns/x/${action}`), [
        { loc: ["path", "campaign_id"], type: "uuid_parsing" },
      ]);
    }
    expectDetail(await t.owner.get(`/api/campaigns/${foreign.id}/contacts`), 404);
    expect(expectStatus(await other.owner.get(`/api/campaigns/${foreign.id}`), 200).status).toBe("draft");
  });
});

describe("POST /api/campaigns/{id}/contacts/upload (CSV)", () => {
  const upload = (client: ApiClient, id: string, text: string, type = "text/csv") =>
    client.request("POST", `/api/campaigns/${id}/contacts/upload`, {
      rawBody: text,
      headers: { "content-type": type },
    });

  it("imports a text/csv body: known columns by name, other columns as variables, row errors by data row", async () => {
    const t = await tenant();
    await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550219999"] });
    const campaign = await createCampaign(t.owner);
    const text = [
      "\uFEFFPhone,Name,Email,Timezone,Quote,Notes",
      '(555) 021-0001,"Roe, Jane",jane@example.com,America/Denver,Q-1,"said ""call after 5"""',
      "555-021-0002,Bob,,,Q-2,",
      "",
      "nope,Bad Phone,,,,",
      "+15550210001,Jane again,,,,",
      "+15550219999,Listed,,,,",
      ",No number,,,,",
      "+15550210003,Ed,ed@,,,",
      '+15550210004,Multi\nLine,,,Q-4,"a,b"',
    ].join("\r\n");
    const result = expectStatus(await upload(t.owner, campaign.id, text), 200);
    expect(result).toEqual({
      imported: 3,
      duplicates: 1,
      on_dnc: 1,
      invalid: [
        { row: 3, reason: "not a valid phone number: nope" },
        { row: 6, reason: "phone_number is required" },
        { row: 7, reason: "not a valid email address" },
      ],
    });
    const contacts = expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}/contacts`), 200).items;
    expect(
      contacts.map(
        (c: { phone_number: string; name: string; status: string; variables: unknown; timezone: string | null }) => [
          c.phone_number,
          c.name,
          c.status,
          c.variables,
          c.timezone,
        ],
      ),
    ).toEqual([
      ["+15550210001", "Roe, Jane", "pending", { Quote: "Q-1", Notes: 'said "call after 5"' }, "America/Denver"],
      ["+15550210002", "Bob", "pending", { Quote: "Q-2" }, null],
      ["+15550219999", "Listed", "skipped_dnc", {}, null],
      ["+15550210004", "Multi\nLine", "pending", { Quote: "Q-4", Notes: "a,b" }, null],
    ]);
  });

  it("takes the file part of a multipart form", async () => {
    const t = await tenant();
    const campaign = await createCampaign(t.owner);
    const form = new FormData();
    form.append(
      "file",
      new Blob(["phone_number,name\n+15550211001,Ann\n+15550211002,Ben\n"], { type: "text/csv" }),
      "contacts.csv",
    );
    const res = await t.owner.upload("POST", `/api/campaigns/${campaign.id}/contacts/upload`, form);
    expect(expectStatus(res, 200)).toEqual({ imported: 2, duplicates: 0, invalid: [], on_dnc: 0 });
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts.pending).toBe(2);
  });

  it("imports 10,000 rows in one upload and refuses 10,001 whole", async () => {
    const t = await tenant();
    const campaign = await createCampaign(t.owner);
    const lines = (n: number) =>
      [
        "phone_number,name,ref",
        ...Array.from({ length: n }, (_, i) => `+1555${String(3_000_000 + i)},Person ${i},R${i}`),
      ].join("\n");
    expect422(await upload(t.owner, campaign.id, lines(10_001)), [{ loc: ["body", "file"], type: "value_error" }]);
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts.total).toBe(0);
    expect(expectStatus(await upload(t.owner, campaign.id, lines(10_000)), 200)).toEqual({
      imported: 10_000,
      duplicates: 0,
      invalid: [],
      on_dnc: 0,
    });
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts.total).toBe(10_000);
  });

  it("refuses a row with too many columns, a value too long or a 9 MB field, naming the row, and imports nothing", async () => {
    const t = await tenant();
    const campaign = await createCampaign(t.owner);
    const refusal = async (text: string) => {
      const res = await upload(t.owner, campaign.id, text);
      expect422(res, [{ loc: ["body", "file"], type: "value_error" }]);
      return JSON.stringify(res.body);
    };
    expect(await refusal(`phone_number,name\n+15550213001,Ann\n+15550213002,${"x,".repeat(200)}\n`)).toContain(
      "Row 3 has more than 100 columns",
    );
    expect(await refusal(`phone_number,note\n+15550213003,${"y".repeat(8193)}\n`)).toContain(
      "Row 2 has a value longer than 8,192 characters",
    );
    expect(await refusal(`phone_number,note\n+15550213004,"${"z".repeat(9 * 1024 * 1024)}"\n`)).toContain(
      "A row is longer than",
    );
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts.total).toBe(0);
  });

  it("answers 422 without a phone column or for malformed CSV, 415 for another type, 413 above 10 MB, 404 and 409 as for JSON", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const campaign = await createCampaign(t.owner);
    expect422(await upload(t.owner, campaign.id, "name,mobile\nAnn,+15550212001\n"), [
      { loc: ["body", "file"], type: "value_error" },
    ]);
    expect422(await upload(t.owner, campaign.id, 'phone_number\n"+15550212002\n'), [
      { loc: ["body", "file"], type: "value_error" },
    ]);
    expect422(await upload(t.owner, campaign.id, ""), [{ loc: ["body", "file"] }]);
    expectDetail(await upload(t.owner, campaign.id, "phone_number\n+15550212003\n", "application/pdf"), 415);
    expectDetail(
      await upload(t.owner, campaign.id, `phone_number,pad\n${`+15550212004,${"x".repeat(1000)}\n`.repeat(10_500)}`),
      413,
    );
    const foreign = await createCampaign(other.owner);
    expectDetail(await upload(t.owner, foreign.id, "phone_number\n+15550212005\n"), 404);
    expect(expectStatus(await t.owner.get(`/api/campaigns/${campaign.id}`), 200).counts.total).toBe(0);
    expectStatus(await t.owner.post(`/api/campaigns/${campaign.id}/cancel`), 200);
    expectDetail(await upload(t.owner, campaign.id, "phone_number\n+15550212006\n"), 409);
  });
});
