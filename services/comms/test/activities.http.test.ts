import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  anonymousClient,
  eventually,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  RFC3339_UTC,
  tenantFactory,
  UNKNOWN_ID,
  UUID_PATTERN,
  type ApiClient,
  type Tenant,
} from "@voiceops/platform/testing";

const tenant = tenantFactory();
const internalKey = inject("internalApiKey");

const ACTIVITY_TYPES = [
  "CALL_STARTED",
  "CALL_ENDED",
  "CALL_TRANSFERRED",
  "SMS_RECEIVED",
  "SMS_SENT",
  "WHATSAPP_RECEIVED",
  "WHATSAPP_SENT",
  "WEB_CHAT",
  "EMAIL_SENT",
  "LEAD_CREATED",
  "SERVICE_REQUEST_CREATED",
  "QUOTE_SENT",
  "APPOINTMENT_BOOKED",
  "DISPATCH_CREATED",
  "CALLBACK_REQUESTED",
  "NOTE",
  "LOOKUP",
];

function postActivity(client: ApiClient, body: unknown, key?: string) {
  return client.request("POST", "/api/activities", {
    body,
    headers: key === undefined ? {} : { "x-internal-key": key },
  });
}

async function createActivity(client: ApiClient, body: Record<string, unknown>, key?: string) {
  return expectStatus(await postActivity(client, { activity_type: "NOTE", ...body }, key), 201);
}

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe("POST /api/activities", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("records an activity of an API client with source api and occurred_at now", async () => {
    const res = await postActivity(t.owner, {
      activity_type: "NOTE",
      description: "  Called back about the leak  ",
      occurred_at: "2020-01-01T00:00:00Z",
    });
    const body = expectStatus(res, 201);
    expect(body).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      activity_type: "NOTE",
      description: "Called back about the leak",
      contact_id: null,
      service_request_id: null,
      session_id: null,
      metadata: {},
      source: "api",
      occurred_at: expect.stringMatching(RFC3339_UTC),
      created_at: expect.stringMatching(RFC3339_UTC),
    });
    expectRecent(body.occurred_at);
    expect(expectStatus(await t.owner.get(`/api/activities/${body.id}`), 200)).toEqual(body);
  });

  it("accepts every activity type in upper case, and no other spelling", async () => {
    for (const type of ACTIVITY_TYPES) {
      expect((await createActivity(t.owner, { activity_type: type })).activity_type).toBe(type);
    }
    const lower = await postActivity(t.owner, { activity_type: "call_ended" });
    const [entry] = expect422(lower, [{ loc: ["body", "activity_type"], type: "enum" }]);
    expect(entry?.msg).toContain("'CALL_ENDED'");
    expect422(await postActivity(t.owner, {}), [{ loc: ["body", "activity_type"], type: "missing" }]);
  });

  it("keeps metadata as a JSON object", async () => {
    const metadata = { tool: "search_contacts", hits: 3, nested: { ok: true, list: [1, "two", null] }, nothing: null };
    const body = await createActivity(t.owner, { activity_type: "LOOKUP", metadata, session_id: "sess-meta" });
    expect(body.metadata).toEqual(metadata);
    expect(body.session_id).toBe("sess-meta");
  });

  it("with the right x-internal-key: source internal and a back-dated occurred_at", async () => {
    const when = "2026-01-05T10:11:12.000Z";
    const body = await createActivity(t.owner, { activity_type: "CALL_STARTED", occurred_at: when }, internalKey);
    expect(body.source).toBe("internal");
    expect(body.occurred_at).toBe(when);
    expectRecent(body.created_at);
    const noDate = await createActivity(t.owner, { activity_type: "CALL_STARTED" }, internalKey);
    expect(noDate.source).toBe("internal");
    expectRecent(noDate.occurred_at);
  });

  it("a wrong x-internal-key is 401 and writes nothing", async () => {
    const fresh = await tenant();
    for (const key of ["wrong", `${internalKey}x`, internalKey.slice(1), ""]) {
      expectDetail(await postActivity(fresh.owner, { activity_type: "NOTE" }, key), 401);
    }
    expect(expectStatus(await fresh.owner.get("/api/activities?lookups=true"), 200).total).toBe(0);
  });

  it("the key is read from the header only, never from the body", async () => {
    const body = await createActivity(t.owner, {
      activity_type: "NOTE",
      internal_key: internalKey,
      occurred_at: "2020-01-01T00:00:00Z",
    });
    expect(body.source).toBe("api");
    expectRecent(body.occurred_at);
  });

  it("422 for an occurred_at in the future, even from the voice runtime", async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect422(await postActivity(t.owner, { activity_type: "NOTE", occurred_at: future }, internalKey), [
      { loc: ["body", "occurred_at"], type: "value_error" },
    ]);
  });

  it("links contacts and service requests of the organization only", async () => {
    const contact = expectStatus(
      await t.owner.post("/api/contacts", { name: "Ann Caller", phone_number: "555-010-7000" }),
      201,
    );
    const request = expectStatus(
      await t.owner.post("/api/service-requests", { description: "Leak", contact_id: contact.id }),
      201,
    );
    const linked = await createActivity(t.owner, {
      contact_id: contact.id.toUpperCase(),
      service_request_id: request.id,
    });
    expect(linked).toMatchObject({ contact_id: contact.id, service_request_id: request.id });

    const other = await tenant();
    const foreignContact = expectStatus(await other.owner.post("/api/contacts", { name: "Foreign" }), 201);
    const foreignRequest = expectStatus(
      await other.owner.post("/api/service-requests", { description: "Foreign job" }),
      201,
    );
    const before = expectStatus(await t.owner.get("/api/activities?lookups=true"), 200).total;
    expect422(
      await postActivity(t.owner, {
        activity_type: "NOTE",
        contact_id: foreignContact.id,
        service_request_id: foreignRequest.id,
      }),
      [
        { loc: ["body", "contact_id"], type: "value_error" },
        { loc: ["body", "service_request_id"], type: "value_error" },
      ],
    );
    expect422(await postActivity(t.owner, { activity_type: "NOTE", contact_id: UNKNOWN_ID }), [
      { loc: ["body", "contact_id"], type: "value_error" },
    ]);
    expect(expectStatus(await t.owner.get("/api/activities?lookups=true"), 200).total).toBe(before);
  });

  it("422 naming every bad field: wrong types, malformed ids, NUL characters, oversize text", async () => {
    const res = await postActivity(t.owner, {
      activity_type: 7,
      description: "a\u0000b",
      contact_id: "not-a-uuid",
      service_request_id: 12,
      session_id: "x".repeat(201),
      metadata: "text",
      occurred_at: "yesterday",
    });
    expect422(res, [
      { loc: ["body", "activity_type"], type: "enum" },
      { loc: ["body", "description"], type: "value_error" },
      { loc: ["body", "contact_id"], type: "uuid_parsing" },
      { loc: ["body", "service_request_id"], type: "string_type" },
      { loc: ["body", "session_id"], type: "string_too_long" },
      { loc: ["body", "metadata"], type: "dict_type" },
      { loc: ["body", "occurred_at"], type: "datetime_parsing" },
    ]);
    expect422(await postActivity(t.owner, { activity_type: "NOTE", metadata: { "k\u0000": "v" } }), [
      { loc: ["body", "metadata"], type: "value_error" },
    ]);
    expect422(await postActivity(t.owner, { activity_type: "NOTE", metadata: { deep: ["ok", { v: "a\u0000" }] } }), [
      { loc: ["body", "metadata"], type: "value_error" },
    ]);
    expect422(await postActivity(t.owner, { activity_type: "NOTE", description: "x".repeat(5001) }), [
      { loc: ["body", "description"], type: "string_too_long" },
    ]);
    expect422(await postActivity(t.owner, { activity_type: "NOTE", session_id: "   " }), [
      { loc: ["body", "session_id"], type: "string_too_short" },
    ]);
    expect422(await postActivity(t.owner, [1, 2]), [{ loc: ["body"] }]);
    const malformed = await t.owner.request("POST", "/api/activities", { rawBody: "{not json" });
    expect(malformed.status).toBe(422);
  });

  it("a CALL_ENDED activity's channel, direction and duration are checked", async () => {
    expect422(
      await postActivity(t.owner, {
        activity_type: "CALL_ENDED",
        session_id: "s-bad",
        metadata: { channel: "fax", direction: "sideways", duration_seconds: -3, transcription: 5 },
      }),
      [
        { loc: ["body", "metadata", "channel"], type: "enum" },
        { loc: ["body", "metadata", "direction"], type: "enum" },
        { loc: ["body", "metadata", "duration_seconds"] },
        { loc: ["body", "metadata", "transcription"] },
      ],
    );
    // Other activity types carry any metadata.
    await createActivity(t.owner, { activity_type: "NOTE", metadata: { channel: "fax" } });
  });

  it("401 without an API key", async () => {
    await expect401(anonymousClient(), "POST", "/api/activities", { activity_type: "NOTE" });
  });
});

describe("GET /api/activities", () => {
  let t: Tenant;
  let contactId: string;
  let requestId: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await tenant();
    contactId = expectStatus(await t.owner.post("/api/contacts", { name: "Listed" }), 201).id;
    requestId = expectStatus(await t.owner.post("/api/service-requests", { description: "Listed job" }), 201).id;
    // Recorded out of order; listed by occurred_at.
    ids.old = (await createActivity(t.owner, { activity_type: "NOTE", occurred_at: hoursAgo(48) }, internalKey)).id;
    ids.lookup = (await createActivity(t.owner, { activity_type: "LOOKUP", occurred_at: hoursAgo(1) }, internalKey)).id;
    ids.recent = (
      await createActivity(
        t.owner,
        { activity_type: "SMS_SENT", contact_id: contactId, occurred_at: hoursAgo(2) },
        internalKey,
      )
    ).id;
    ids.job = (
      await createActivity(
        t.owner,
        { activity_type: "QUOTE_SENT", service_request_id: requestId, occurred_at: hoursAgo(5) },
        internalKey,
      )
    ).id;
    ids.now = (await createActivity(t.owner, { activity_type: "NOTE", contact_id: contactId })).id;
  });

  it("lists newest first without plain lookups, with the documented defaults", async () => {
    const body = expectStatus(await t.owner.get("/api/activities"), 200);
    expect(body).toMatchObject({ total: 4, page: 1, page_size: 50 });
    expect(idsOf(body.items)).toEqual([ids.now, ids.recent, ids.job, ids.old]);
  });

  it("lookups=true adds them; activity_type=LOOKUP lists only them", async () => {
    const all = expectStatus(await t.owner.get("/api/activities?lookups=true"), 200);
    expect(idsOf(all.items)).toEqual([ids.now, ids.lookup, ids.recent, ids.job, ids.old]);
    expect(all.total).toBe(5);
    const lookups = expectStatus(await t.owner.get("/api/activities?activity_type=LOOKUP"), 200);
    expect(idsOf(lookups.items)).toEqual([ids.lookup]);
    expect(lookups.total).toBe(1);
  });

  it("filters by type, contact, service request and hours_back, combined with AND", async () => {
    const notes = expectStatus(await t.owner.get("/api/activities?activity_type=NOTE"), 200);
    expect(idsOf(notes.items)).toEqual([ids.now, ids.old]);
    expect(notes.total).toBe(2);
    expect(idsOf(expectStatus(await t.owner.get(`/api/activities?contact_id=${contactId}`), 200).items)).toEqual([
      ids.now,
      ids.recent,
    ]);
    expect(
      idsOf(expectStatus(await t.owner.get(`/api/activities?service_request_id=${requestId}`), 200).items),
    ).toEqual([ids.job]);
    const recent = expectStatus(await t.owner.get("/api/activities?hours_back=3"), 200);
    expect(idsOf(recent.items)).toEqual([ids.now, ids.recent]);
    expect(recent.total).toBe(2);
    expect(expectStatus(await t.owner.get("/api/activities?hours_back=3&lookups=true"), 200).total).toBe(3);
    const both = expectStatus(
      await t.owner.get(`/api/activities?contact_id=${contactId}&activity_type=NOTE&hours_back=1`),
      200,
    );
    expect(idsOf(both.items)).toEqual([ids.now]);
  });

  it("pages with the true total; a page past the end is empty", async () => {
    const first = expectStatus(await t.owner.get("/api/activities?page_size=3"), 200);
    expect(idsOf(first.items)).toEqual([ids.now, ids.recent, ids.job]);
    const second = expectStatus(await t.owner.get("/api/activities?page_size=3&page=2"), 200);
    expect(idsOf(second.items)).toEqual([ids.old]);
    expect(second).toMatchObject({ total: 4, page: 2, page_size: 3 });
    const past = expectStatus(await t.owner.get("/api/activities?page=9"), 200);
    expect(past).toMatchObject({ items: [], total: 4 });
  });

  it("422 for out-of-range and malformed parameters, each named", async () => {
    expect422(
      await t.owner.get(
        "/api/activities?page=0&page_size=101&activity_type=note&contact_id=x&service_request_id=1&hours_back=8761&lookups=maybe",
      ),
      [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "page_size"], type: "less_than_equal" },
        { loc: ["query", "activity_type"], type: "enum" },
        { loc: ["query", "contact_id"], type: "uuid_parsing" },
        { loc: ["query", "service_request_id"], type: "uuid_parsing" },
        { loc: ["query", "hours_back"], type: "less_than_equal" },
        { loc: ["query", "lookups"], type: "bool_parsing" },
      ],
    );
    expect422(await t.owner.get("/api/activities?hours_back=0&page_size=0"), [
      { loc: ["query", "page_size"], type: "greater_than_equal" },
      { loc: ["query", "hours_back"], type: "greater_than_equal" },
    ]);
    expect422(await t.owner.get("/api/activities?hours_back=abc"), [
      { loc: ["query", "hours_back"], type: "int_parsing" },
    ]);
  });

  it("another organization sees none of them, and gets 404 for their ids", async () => {
    const other = await tenant();
    expect(expectStatus(await other.owner.get("/api/activities?lookups=true"), 200)).toMatchObject({
      items: [],
      total: 0,
    });
    expectDetail(await other.owner.get(`/api/activities/${ids.now}`), 404);
    expect(expectStatus(await other.owner.get(`/api/activities?contact_id=${contactId}`), 200).total).toBe(0);
  });

  it("GET by id: 404 for an unknown id, 422 for a malformed one, 401 without a key", async () => {
    expect(expectStatus(await t.member.get(`/api/activities/${ids.recent}`), 200).contact_id).toBe(contactId);
    expectDetail(await t.owner.get(`/api/activities/${UNKNOWN_ID}`), 404);
    expect422(await t.owner.get("/api/activities/not-a-uuid"), [
      { loc: ["path", "activity_id"], type: "uuid_parsing" },
    ]);
    await expect401(anonymousClient(), "GET", "/api/activities");
    await expect401(anonymousClient(), "GET", `/api/activities/${ids.now}`);
  });

  it("a deleted contact or service request is unlinked from its activities", async () => {
    const contact = expectStatus(await t.owner.post("/api/contacts", { name: "Gone Soon" }), 201);
    const request = expectStatus(await t.owner.post("/api/service-requests", { description: "Gone job" }), 201);
    const activity = await createActivity(t.owner, { contact_id: contact.id, service_request_id: request.id });
    expectStatus(await t.owner.delete(`/api/contacts/${contact.id}`), 204);
    expectStatus(await t.owner.delete(`/api/service-requests/${request.id}`), 204);
    await eventually(async () => {
      const body = expectStatus(await t.owner.get(`/api/activities/${activity.id}`), 200);
      return body.contact_id === null && body.service_request_id === null ? true : undefined;
    });
  });
});
