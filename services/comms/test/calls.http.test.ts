import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  anonymousClient,
  eventually,
  expect401,
  expect422,
  expectDetail,
  expectStatus,
  RFC3339_UTC,
  tenantFactory,
  UUID_PATTERN,
  type ApiClient,
  type Tenant,
} from "@voiceops/platform/testing";

const tenant = tenantFactory();
const internalKey = inject("internalApiKey");

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

async function activity(client: ApiClient, body: Record<string, unknown>) {
  const res = await client.request("POST", "/api/activities", { body, headers: { "x-internal-key": internalKey } });
  return expectStatus(res, 201);
}

/** Records a call: its CALL_ENDED activity, hoursBack hours ago. */
function endCall(
  client: ApiClient,
  sessionId: string,
  metadata: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return activity(client, { activity_type: "CALL_ENDED", session_id: sessionId, metadata, ...extra });
}

const sessionsOf = (items: { session_id: string }[]) => items.map((i) => i.session_id);
const path = (sessionId: string) => `/api/calls/${encodeURIComponent(sessionId)}`;

describe("GET /api/calls", () => {
  let t: Tenant;
  let contact: { id: string; name: string };
  beforeAll(async () => {
    t = await tenant();
    contact = expectStatus(
      await t.owner.post("/api/contacts", { name: "Carla Caller", phone_number: "+15550201000" }),
      201,
    );
    await activity(t.owner, { activity_type: "CALL_STARTED", session_id: "s-phone", occurred_at: hoursAgo(3.1) });
    await endCall(
      t.owner,
      "s-phone",
      {
        duration_seconds: 95,
        transcription: [{ role: "user", text: "My sink leaks", start_seconds: 0 }],
        recording: "https://media.example.com/rec/1.mp3",
        outcome: "booked",
        start_time: "2026-11-20T10:00:00Z",
        channel: "phone",
        from_number: "+15550201000",
        to_number: "+15550209999",
        direction: "inbound",
        disposition: "appointment",
        ended_reason: "hangup",
        cost_cents: 12,
      },
      { contact_id: contact.id, occurred_at: hoursAgo(3), description: "Call ended" },
    );
    await endCall(
      t.owner,
      "s-web",
      { channel: "web", duration_seconds: 20, transcription: "" },
      { occurred_at: hoursAgo(2) },
    );
    // Written before web calls existed: no channel, counts as phone.
    await endCall(t.owner, "s-legacy", { duration_seconds: 5 }, { occurred_at: hoursAgo(30) });
    await endCall(t.owner, "s-recent", { transcription: "Hi" }, { occurred_at: hoursAgo(1) });
    // Not calls: a CALL_ENDED without a session, and other activities.
    await activity(t.owner, { activity_type: "CALL_ENDED", metadata: { duration_seconds: 1 } });
    await activity(t.owner, { activity_type: "NOTE", session_id: "s-note-only" });
  });

  it("lists one item per call, newest first, with the documented defaults and fields", async () => {
    const body = expectStatus(await t.owner.get("/api/calls"), 200);
    expect(body).toMatchObject({ total: 4, page: 1, page_size: 25 });
    expect(sessionsOf(body.items)).toEqual(["s-recent", "s-web", "s-phone", "s-legacy"]);
    const phone = body.items[2];
    expect(phone).toEqual({
      session_id: "s-phone",
      activity_id: expect.stringMatching(UUID_PATTERN),
      contact_id: contact.id,
      contact: { id: contact.id, name: "Carla Caller" },
      channel: "phone",
      direction: "inbound",
      from_number: "+15550201000",
      start_time: "2026-11-20T10:00:00Z",
      duration_seconds: 95,
      outcome: "booked",
      disposition: "appointment",
      has_transcription: true,
      has_recording: true,
      occurred_at: expect.stringMatching(RFC3339_UTC),
    });
    expect(body.items[1]).toMatchObject({
      channel: "web",
      has_transcription: false,
      has_recording: false,
      contact: null,
      contact_id: null,
      direction: null,
    });
    expect(body.items[3]).toMatchObject({ session_id: "s-legacy", channel: "phone", duration_seconds: 5 });
    expect(body.items[0]).toMatchObject({ has_transcription: true, duration_seconds: null });
  });

  it("filters by channel and hours_back, and pages with the true total", async () => {
    const phone = expectStatus(await t.owner.get("/api/calls?channel=phone"), 200);
    expect(sessionsOf(phone.items)).toEqual(["s-recent", "s-phone", "s-legacy"]);
    expect(phone.total).toBe(3);
    const web = expectStatus(await t.owner.get("/api/calls?channel=web"), 200);
    expect(sessionsOf(web.items)).toEqual(["s-web"]);
    expect(web.total).toBe(1);
    const recent = expectStatus(await t.owner.get("/api/calls?hours_back=24"), 200);
    expect(sessionsOf(recent.items)).toEqual(["s-recent", "s-web", "s-phone"]);
    expect(recent.total).toBe(3);
    expect(expectStatus(await t.owner.get("/api/calls?hours_back=24&channel=phone"), 200).total).toBe(2);
    const second = expectStatus(await t.owner.get("/api/calls?page=2&page_size=3"), 200);
    expect(sessionsOf(second.items)).toEqual(["s-legacy"]);
    expect(second).toMatchObject({ total: 4, page: 2, page_size: 3 });
    expect(expectStatus(await t.owner.get("/api/calls?page=5"), 200)).toMatchObject({ items: [], total: 4 });
    expect(expectStatus(await t.owner.get("/api/calls?page_size=200"), 200).items).toHaveLength(4);
  });

  it("a later CALL_ENDED of a session replaces its call", async () => {
    await endCall(t.owner, "s-twice", { channel: "web", duration_seconds: 1 }, { occurred_at: hoursAgo(50) });
    await endCall(t.owner, "s-twice", { channel: "phone", duration_seconds: 2 }, { occurred_at: hoursAgo(49) });
    const body = expectStatus(await t.owner.get("/api/calls?page_size=200"), 200);
    expect(sessionsOf(body.items).filter((s: string) => s === "s-twice")).toHaveLength(1);
    expect(body.items.find((i: { session_id: string }) => i.session_id === "s-twice")).toMatchObject({
      channel: "phone",
      duration_seconds: 2,
    });
    expect(body.total).toBe(5);
    expect(expectStatus(await t.owner.get("/api/calls?channel=web"), 200).total).toBe(1);
    expect(expectStatus(await t.owner.delete(path("s-twice")), 200)).toEqual({
      session_id: "s-twice",
      deleted_activities: 2,
    });
  });

  it("the contact's name follows the CRM", async () => {
    expectStatus(await t.owner.put(`/api/contacts/${contact.id}`, { name: "Carla Renamed" }), 200);
    await eventually(async () => {
      const call = expectStatus(await t.owner.get(path("s-phone")), 200);
      return call.contact?.name === "Carla Renamed" ? true : undefined;
    });
  });

  it("422 for out-of-range and malformed parameters", async () => {
    expect422(await t.owner.get("/api/calls?page=0&page_size=201&hours_back=8761&channel=sms"), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
      { loc: ["query", "hours_back"], type: "less_than_equal" },
      { loc: ["query", "channel"], type: "enum" },
    ]);
    expect422(await t.owner.get("/api/calls?hours_back=0&page_size=x"), [
      { loc: ["query", "page_size"], type: "int_parsing" },
      { loc: ["query", "hours_back"], type: "greater_than_equal" },
    ]);
  });

  it("another organization sees no calls and gets 404 for each session", async () => {
    const other = await tenant();
    expect(expectStatus(await other.owner.get("/api/calls"), 200)).toMatchObject({ items: [], total: 0 });
    expectDetail(await other.owner.get(path("s-phone")), 404);
    expectDetail(await other.owner.get(`${path("s-phone")}/recording`), 404);
    expectDetail(await other.owner.delete(path("s-phone")), 404);
    expect(expectStatus(await other.owner.delete("/api/calls?hours_back=8760"), 200)).toEqual({
      deleted_calls: 0,
      deleted_activities: 0,
    });
    expect(expectStatus(await t.owner.get("/api/calls"), 200).total).toBe(4);
  });

  it("401 without an API key on every call route", async () => {
    const anonymous = anonymousClient();
    await expect401(anonymous, "GET", "/api/calls");
    await expect401(anonymous, "DELETE", "/api/calls?hours_back=1");
    await expect401(anonymous, "GET", path("s-phone"));
    await expect401(anonymous, "DELETE", path("s-phone"));
    await expect401(anonymous, "GET", `${path("s-phone")}/recording`);
  });
});

describe("GET /api/calls/{session_id}", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("answers the item with its transcript, recording and every activity of the session, oldest first", async () => {
    const session = "CA:42/7 ünïcode";
    const started = await activity(t.owner, {
      activity_type: "CALL_STARTED",
      session_id: session,
      occurred_at: hoursAgo(2),
    });
    const lookup = await activity(t.owner, {
      activity_type: "LOOKUP",
      session_id: session,
      occurred_at: hoursAgo(1.5),
    });
    const ended = await endCall(
      t.owner,
      session,
      {
        transcription: "Caller: hello\nAgent: hi",
        recording: "https://media.example.com/r.wav",
        duration_seconds: 12.5,
      },
      { occurred_at: hoursAgo(1) },
    );
    const body = expectStatus(await t.owner.get(path(session)), 200);
    expect(body).toMatchObject({
      session_id: session,
      activity_id: ended.id,
      channel: "phone",
      duration_seconds: 12.5,
      has_transcription: true,
      has_recording: true,
      transcription: "Caller: hello\nAgent: hi",
      recording: "https://media.example.com/r.wav",
    });
    expect(body.activities.map((a: { id: string }) => a.id)).toEqual([started.id, lookup.id, ended.id]);
    expect(body.activities[2]).toEqual(ended);
  });

  it("keeps a transcription given as turns", async () => {
    const turns = [
      { role: "agent", text: "Hello", start_seconds: 0 },
      { role: "user", text: "Hi", start_seconds: 1.5 },
    ];
    await endCall(t.owner, "s-turns", { transcription: turns });
    const body = expectStatus(await t.owner.get(path("s-turns")), 200);
    expect(body.transcription).toEqual(turns);
    expect(body.recording).toBeNull();
  });

  it("404 for a session without a call, even with other activities", async () => {
    await activity(t.owner, { activity_type: "NOTE", session_id: "s-no-call" });
    expectDetail(await t.owner.get(path("s-no-call")), 404);
    expectDetail(await t.owner.get(path("never")), 404);
    expect422(await t.owner.get(path("x".repeat(201))), [{ loc: ["path", "session_id"], type: "string_too_long" }]);
  });

  it("recording: a provider's URL as it is, 404 without one", async () => {
    await endCall(t.owner, "s-provider", { recording: "https://api.telephony.example/rec/RE1.mp3" });
    expect(expectStatus(await t.owner.get(`${path("s-provider")}/recording`), 200)).toEqual({
      session_id: "s-provider",
      url: "https://api.telephony.example/rec/RE1.mp3",
      expires_at: null,
      content_type: null,
    });
    await endCall(t.owner, "s-silent", {});
    expectDetail(await t.owner.get(`${path("s-silent")}/recording`), 404);
    expectDetail(await t.owner.get(`${path("s-nothing")}/recording`), 404);
  });
});

describe("DELETE /api/calls and /api/calls/{session_id}", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("deletes every activity of one session", async () => {
    await activity(t.owner, { activity_type: "CALL_STARTED", session_id: "s-del" });
    await activity(t.owner, { activity_type: "LOOKUP", session_id: "s-del" });
    await endCall(t.owner, "s-del", { duration_seconds: 3 });
    const keep = await endCall(t.owner, "s-keep", {});
    expect(expectStatus(await t.owner.delete(path("s-del")), 200)).toEqual({
      session_id: "s-del",
      deleted_activities: 3,
    });
    expectDetail(await t.owner.get(path("s-del")), 404);
    expectDetail(await t.owner.delete(path("s-del")), 404);
    const left = expectStatus(await t.owner.get("/api/activities?lookups=true"), 200);
    expect(left.items.map((a: { id: string }) => a.id)).toEqual([keep.id]);
    // A session with activities but no call can be deleted too.
    await activity(t.owner, { activity_type: "NOTE", session_id: "s-notes" });
    expect(expectStatus(await t.owner.delete(path("s-notes")), 200)).toEqual({
      session_id: "s-notes",
      deleted_activities: 1,
    });
  });

  it("422 with loc [query] when no filter is given", async () => {
    for (const query of ["", "?no_transcription=false"]) {
      const res = await t.owner.delete(`/api/calls${query}`);
      expect422(res, [{ loc: ["query"] }]);
    }
    expect422(await t.owner.delete("/api/calls?max_duration=0&hours_back=8761&no_transcription=perhaps"), [
      { loc: ["query", "no_transcription"], type: "bool_parsing" },
      { loc: ["query", "max_duration"], type: "greater_than_equal" },
      { loc: ["query", "hours_back"], type: "less_than_equal" },
    ]);
    expect422(await t.owner.delete("/api/calls?max_duration=abc"), [
      { loc: ["query", "max_duration"], type: "int_parsing" },
    ]);
  });

  it("deletes the calls matching every given filter, with their sessions' activities", async () => {
    const fresh = await tenant();
    const c = fresh.owner;
    await endCall(c, "a-short-bare", { duration_seconds: 10 }, { occurred_at: hoursAgo(1) });
    await activity(c, { activity_type: "CALL_STARTED", session_id: "a-short-bare", occurred_at: hoursAgo(1.1) });
    await endCall(
      c,
      "b-short-transcribed",
      { duration_seconds: 10, transcription: "hello" },
      { occurred_at: hoursAgo(1) },
    );
    await endCall(c, "c-long-bare", { duration_seconds: 600 }, { occurred_at: hoursAgo(1) });
    await endCall(c, "d-old-short-bare", { duration_seconds: 10 }, { occurred_at: hoursAgo(100) });
    await endCall(c, "e-unknown-duration", { transcription: [] }, { occurred_at: hoursAgo(1) });
    const sessions = async () => sessionsOf(expectStatus(await c.get("/api/calls?page_size=200"), 200).items).sort();

    // AND: short, without transcription, in the last day.
    expect(expectStatus(await c.delete("/api/calls?no_transcription=true&max_duration=60&hours_back=24"), 200)).toEqual(
      { deleted_calls: 1, deleted_activities: 2 },
    );
    expect(await sessions()).toEqual(["b-short-transcribed", "c-long-bare", "d-old-short-bare", "e-unknown-duration"]);
    // A call of unknown duration is not shorter than anything.
    expect(expectStatus(await c.delete("/api/calls?max_duration=60"), 200)).toEqual({
      deleted_calls: 2,
      deleted_activities: 2,
    });
    expect(await sessions()).toEqual(["c-long-bare", "e-unknown-duration"]);
    expect(expectStatus(await c.delete("/api/calls?no_transcription=true"), 200)).toEqual({
      deleted_calls: 2,
      deleted_activities: 2,
    });
    expect(await sessions()).toEqual([]);
    expect(expectStatus(await c.get("/api/calls"), 200).total).toBe(0);
    expect(expectStatus(await c.delete("/api/calls?hours_back=1"), 200)).toEqual({
      deleted_calls: 0,
      deleted_activities: 0,
    });
  });
});
