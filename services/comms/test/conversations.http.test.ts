import { beforeAll, describe, expect, it } from "vitest";
import {
  anonymousClient,
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

async function upsert(client: ApiClient, body: Record<string, unknown>) {
  return expectStatus(await client.post("/api/conversations", body), 201);
}

async function addMessage(client: ApiClient, id: string, body: Record<string, unknown>) {
  return expectStatus(await client.post(`/api/conversations/${id}/messages`, body), 201);
}

describe("POST /api/conversations", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("creates a conversation with a normalized number", async () => {
    const body = await upsert(t.owner, {
      phone_number: "(555) 010-2000",
      channel: "phone",
      conversation_state: { step: "greeting" },
    });
    expect(body).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      phone_number: "+15550102000",
      channel: "phone",
      is_active: true,
      conversation_state: { step: "greeting" },
      message_count: 0,
      last_message_at: null,
      ended_at: null,
      created_at: expect.stringMatching(RFC3339_UTC),
      updated_at: expect.stringMatching(RFC3339_UTC),
    });
    expect(expectStatus(await t.owner.get(`/api/conversations/${body.id}`), 200)).toEqual(body);
  });

  it("updates the active conversation of the same phone and channel, merging its state", async () => {
    const first = await upsert(t.owner, {
      phone_number: "+15550103000",
      channel: "sms",
      conversation_state: { a: 1, b: { x: true }, c: "keep" },
    });
    const second = await upsert(t.owner, {
      phone_number: "555.010.3000",
      channel: "sms",
      conversation_state: { a: 2, b: null, d: [1] },
    });
    expect(second.id).toBe(first.id);
    expect(second.conversation_state).toEqual({ a: 2, c: "keep", d: [1] });
    // Without a state nothing changes but the activity time.
    const third = await upsert(t.owner, { phone_number: "+15550103000", channel: "sms" });
    expect(third.id).toBe(first.id);
    expect(third.conversation_state).toEqual({ a: 2, c: "keep", d: [1] });
    // Another channel is another conversation.
    const whatsapp = await upsert(t.owner, { phone_number: "+15550103000", channel: "whatsapp" });
    expect(whatsapp.id).not.toBe(first.id);
    expect(whatsapp.conversation_state).toEqual({});
  });

  it("starts a new conversation once the active one has ended", async () => {
    const first = await upsert(t.owner, { phone_number: "+15550104000", channel: "phone" });
    expectStatus(await t.owner.put(`/api/conversations/${first.id}/end`), 200);
    const next = await upsert(t.owner, { phone_number: "+15550104000", channel: "phone" });
    expect(next.id).not.toBe(first.id);
    expect(next.is_active).toBe(true);
  });

  it("a web conversation keeps any visitor id as its phone_number", async () => {
    const body = await upsert(t.owner, { phone_number: "visitor-abc_123", channel: "web" });
    expect(body.phone_number).toBe("visitor-abc_123");
    expect((await upsert(t.owner, { phone_number: "visitor-abc_123", channel: "web" })).id).toBe(body.id);
  });

  it("concurrent upserts of one phone and channel make one conversation", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        upsert(t.owner, { phone_number: "+15550109999", channel: "phone", conversation_state: { [`k${i}`]: i } }),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    const [listed] = expectStatus(await t.owner.get("/api/conversations?phone_number=%2B15550109999"), 200);
    expect(Object.keys(listed.conversation_state).sort()).toEqual(["k0", "k1", "k2", "k3", "k4", "k5"]);
  });

  it("422 for a missing or bad phone number, channel or state", async () => {
    expect422(await t.owner.post("/api/conversations", {}), [
      { loc: ["body", "phone_number"], type: "missing" },
      { loc: ["body", "channel"], type: "missing" },
    ]);
    expect422(await t.owner.post("/api/conversations", { phone_number: "not a phone", channel: "sms" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
    ]);
    expect422(
      await t.owner.post("/api/conversations", {
        phone_number: "+15550100000",
        channel: "fax",
        conversation_state: [1],
      }),
      [
        { loc: ["body", "channel"], type: "enum" },
        { loc: ["body", "conversation_state"], type: "dict_type" },
      ],
    );
    expect422(await t.owner.post("/api/conversations", { phone_number: "   ", channel: "web" }), [
      { loc: ["body", "phone_number"], type: "string_too_short" },
    ]);
    expect422(await t.owner.post("/api/conversations", { phone_number: 5550100000, channel: "phone" }), [
      { loc: ["body", "phone_number"], type: "string_type" },
    ]);
    expect422(await t.owner.post("/api/conversations", { phone_number: "v\u0000", channel: "web" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
    ]);
    expect422(
      await t.owner.post("/api/conversations", {
        phone_number: "v1",
        channel: "web",
        conversation_state: { note: "\u0000" },
      }),
      [{ loc: ["body", "conversation_state"], type: "value_error" }],
    );
    expect(expectStatus(await t.owner.get("/api/conversations?phone_number=v1"), 200)).toEqual([]);
  });

  it("401 without an API key", async () => {
    await expect401(anonymousClient(), "POST", "/api/conversations", {
      phone_number: "+15550100000",
      channel: "phone",
    });
    await expect401(anonymousClient(), "GET", "/api/conversations");
  });
});

describe("GET /api/conversations", () => {
  let t: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await tenant();
    ids.phoneOld = (await upsert(t.owner, { phone_number: "+15550105000", channel: "phone" })).id;
    ids.sms = (await upsert(t.owner, { phone_number: "+15550105000", channel: "sms" })).id;
    ids.other = (await upsert(t.owner, { phone_number: "+15550106000", channel: "phone" })).id;
    ids.web = (await upsert(t.owner, { phone_number: "visitor-1", channel: "web" })).id;
    // A message makes the first one the most recently active.
    await addMessage(t.owner, ids.phoneOld ?? "", { role: "user", content: "Hello" });
  });

  it("lists most recently active first, as a JSON array", async () => {
    const body = expectStatus(await t.owner.get("/api/conversations"), 200);
    expect(Array.isArray(body)).toBe(true);
    expect(idsOf(body)).toEqual([ids.phoneOld, ids.web, ids.other, ids.sms]);
  });

  it("filters by phone number whatever its formatting, by channel, and limits", async () => {
    for (const phone of ["+15550105000", "(555) 010-5000", "555-010-5000", "5550105000"]) {
      expect(
        idsOf(expectStatus(await t.owner.get(`/api/conversations?phone_number=${encodeURIComponent(phone)}`), 200)),
      ).toEqual([ids.phoneOld, ids.sms]);
    }
    expect(
      idsOf(expectStatus(await t.owner.get("/api/conversations?phone_number=555-010-5000&channel=sms"), 200)),
    ).toEqual([ids.sms]);
    expect(idsOf(expectStatus(await t.owner.get("/api/conversations?channel=phone"), 200))).toEqual([
      ids.phoneOld,
      ids.other,
    ]);
    expect(idsOf(expectStatus(await t.owner.get("/api/conversations?phone_number=visitor-1"), 200))).toEqual([ids.web]);
    expect(idsOf(expectStatus(await t.owner.get("/api/conversations?limit=2"), 200))).toEqual([ids.phoneOld, ids.web]);
    expect(expectStatus(await t.owner.get("/api/conversations?phone_number=%2B19990000000"), 200)).toEqual([]);
  });

  it("422 for out-of-range limits and bad channels", async () => {
    expect422(await t.owner.get("/api/conversations?limit=0&channel=fax"), [
      { loc: ["query", "channel"], type: "enum" },
      { loc: ["query", "limit"], type: "greater_than_equal" },
    ]);
    expect422(await t.owner.get("/api/conversations?limit=101"), [
      { loc: ["query", "limit"], type: "less_than_equal" },
    ]);
    expect422(await t.owner.get("/api/conversations?limit=x"), [{ loc: ["query", "limit"], type: "int_parsing" }]);
  });

  it("another organization sees none of them and gets 404 for each route by id", async () => {
    const other = await tenant();
    expect(expectStatus(await other.owner.get("/api/conversations"), 200)).toEqual([]);
    expectDetail(await other.owner.get(`/api/conversations/${ids.sms}`), 404);
    expectDetail(await other.owner.get(`/api/conversations/${ids.sms}/messages`), 404);
    expectDetail(await other.owner.post(`/api/conversations/${ids.sms}/messages`, { role: "user", content: "x" }), 404);
    expectDetail(await other.owner.put(`/api/conversations/${ids.sms}/end`), 404);
    expectDetail(await other.owner.delete(`/api/conversations/${ids.sms}`), 404);
    expect(expectStatus(await t.owner.get(`/api/conversations/${ids.sms}`), 200).is_active).toBe(true);
  });
});

describe("conversation messages, end and delete", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("logs messages in order and moves the counters with them", async () => {
    const conversation = await upsert(t.owner, { phone_number: "+15550107000", channel: "phone" });
    const first = await addMessage(t.owner, conversation.id, {
      role: "user",
      content: "My sink leaks",
      metadata: { confidence: 0.9 },
    });
    expect(first).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      conversation_id: conversation.id,
      role: "user",
      content: "My sink leaks",
      metadata: { confidence: 0.9 },
      created_at: expect.stringMatching(RFC3339_UTC),
    });
    for (const [i, role] of ["assistant", "system", "tool", "user"].entries()) {
      await addMessage(t.owner, conversation.id, { role, content: `m${i}` });
    }
    const after = expectStatus(await t.owner.get(`/api/conversations/${conversation.id}`), 200);
    expect(after.message_count).toBe(5);
    expectRecent(after.last_message_at);
    const latest = expectStatus(await t.owner.get(`/api/conversations/${conversation.id}/messages?limit=3`), 200);
    expect(latest.total).toBe(5);
    expect(latest.items.map((m: { content: string }) => m.content)).toEqual(["m1", "m2", "m3"]);
    const all = expectStatus(await t.owner.get(`/api/conversations/${conversation.id}/messages`), 200);
    expect(all.items.map((m: { content: string }) => m.content)).toEqual(["My sink leaks", "m0", "m1", "m2", "m3"]);
    expect(all.items[1].metadata).toEqual({});
  });

  it("counts every one of concurrent messages", async () => {
    const conversation = await upsert(t.owner, { phone_number: "+15550107100", channel: "sms" });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => addMessage(t.owner, conversation.id, { role: "user", content: `c${i}` })),
    );
    const body = expectStatus(await t.owner.get(`/api/conversations/${conversation.id}/messages?limit=100`), 200);
    expect(body.total).toBe(8);
    expect(body.items.map((m: { content: string }) => m.content).sort()).toEqual([
      "c0",
      "c1",
      "c2",
      "c3",
      "c4",
      "c5",
      "c6",
      "c7",
    ]);
  });

  it("422 for a bad role, an empty or oversize content, a bad limit", async () => {
    const conversation = await upsert(t.owner, { phone_number: "+15550107200", channel: "phone" });
    const path = `/api/conversations/${conversation.id}/messages`;
    expect422(await t.owner.post(path, {}), [
      { loc: ["body", "role"], type: "missing" },
      { loc: ["body", "content"], type: "missing" },
    ]);
    expect422(await t.owner.post(path, { role: "bot", content: "" }), [
      { loc: ["body", "role"], type: "enum" },
      { loc: ["body", "content"], type: "string_too_short" },
    ]);
    expect422(await t.owner.post(path, { role: "user", content: "x".repeat(32001) }), [
      { loc: ["body", "content"], type: "string_too_long" },
    ]);
    expect(
      expectStatus(await t.owner.post(path, { role: "user", content: "x".repeat(32000) }), 201).content,
    ).toHaveLength(32000);
    expect422(await t.owner.post(path, { role: "user", content: "a\u0000" }), [
      { loc: ["body", "content"], type: "value_error" },
    ]);
    expect422(await t.owner.post(path, { role: "user", content: "ok", metadata: "m" }), [
      { loc: ["body", "metadata"], type: "dict_type" },
    ]);
    expect422(await t.owner.get(`${path}?limit=101`), [{ loc: ["query", "limit"], type: "less_than_equal" }]);
    expect422(await t.owner.get(`${path}?limit=0`), [{ loc: ["query", "limit"], type: "greater_than_equal" }]);
    expect(expectStatus(await t.owner.get(path), 200).total).toBe(1);
  });

  it("ending is idempotent; a message to an ended conversation is 409", async () => {
    const conversation = await upsert(t.owner, { phone_number: "+15550107300", channel: "phone" });
    await addMessage(t.owner, conversation.id, { role: "user", content: "bye" });
    const ended = expectStatus(await t.owner.put(`/api/conversations/${conversation.id}/end`), 200);
    expect(ended).toMatchObject({ id: conversation.id, is_active: false, message_count: 1 });
    expectRecent(ended.ended_at);
    expect(expectStatus(await t.owner.put(`/api/conversations/${conversation.id}/end`), 200)).toEqual(ended);
    expectDetail(
      await t.owner.post(`/api/conversations/${conversation.id}/messages`, { role: "user", content: "again" }),
      409,
    );
    expect(expectStatus(await t.owner.get(`/api/conversations/${conversation.id}`), 200).message_count).toBe(1);
  });

  it("delete removes the conversation and its messages", async () => {
    const conversation = await upsert(t.owner, { phone_number: "+15550107400", channel: "phone" });
    await addMessage(t.owner, conversation.id, { role: "user", content: "hi" });
    expect((await t.owner.delete(`/api/conversations/${conversation.id}`)).status).toBe(204);
    expectDetail(await t.owner.get(`/api/conversations/${conversation.id}`), 404);
    expectDetail(await t.owner.get(`/api/conversations/${conversation.id}/messages`), 404);
    expectDetail(await t.owner.delete(`/api/conversations/${conversation.id}`), 404);
  });

  it("404 for unknown ids and 422 for malformed ones on every route", async () => {
    for (const [method, suffix, body] of [
      ["GET", "", undefined],
      ["DELETE", "", undefined],
      ["GET", "/messages", undefined],
      ["POST", "/messages", { role: "user", content: "x" }],
      ["PUT", "/end", undefined],
    ] as const) {
      expectDetail(await t.owner.request(method, `/api/conversations/${UNKNOWN_ID}${suffix}`, { body }), 404);
      expect422(await t.owner.request(method, `/api/conversations/nope${suffix}`, { body }), [
        { loc: ["path", "conversation_id"], type: "uuid_parsing" },
      ]);
      await expect401(anonymousClient(), method, `/api/conversations/${UNKNOWN_ID}${suffix}`, body);
    }
  });
});

describe("caller memory", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("is null until a summary is written, then read from the latest phone conversation", async () => {
    expect(expectStatus(await t.owner.get("/api/caller-memory?phone_number=555-010-8000"), 200)).toEqual({
      phone_number: "+15550108000",
      summary: null,
      summary_updated_at: null,
      conversation_id: null,
    });
    const conversation = await upsert(t.owner, {
      phone_number: "+15550108000",
      channel: "phone",
      conversation_state: { summary: "Leaky sink, prefers mornings", summary_updated_at: "2001-01-01T00:00:00Z" },
    });
    const stamp = conversation.conversation_state.summary_updated_at;
    expectRecent(stamp);
    const memory = expectStatus(await t.owner.get("/api/caller-memory?phone_number=(555)%20010-8000"), 200);
    expect(memory).toEqual({
      phone_number: "+15550108000",
      summary: "Leaky sink, prefers mornings",
      summary_updated_at: expect.stringMatching(RFC3339_UTC),
      conversation_id: conversation.id,
    });
    expect(Date.parse(memory.summary_updated_at)).toBe(Date.parse(stamp));
  });

  it("summary_updated_at moves only when the summary changes, and goes with it", async () => {
    const first = await upsert(t.owner, {
      phone_number: "+15550108100",
      channel: "phone",
      conversation_state: { summary: "v1" },
    });
    const stamp = first.conversation_state.summary_updated_at;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const same = await upsert(t.owner, {
      phone_number: "+15550108100",
      channel: "phone",
      conversation_state: { summary: "v1", other: 1 },
    });
    expect(same.conversation_state.summary_updated_at).toBe(stamp);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const changed = await upsert(t.owner, {
      phone_number: "+15550108100",
      channel: "phone",
      conversation_state: { summary: "v2" },
    });
    expect(Date.parse(changed.conversation_state.summary_updated_at)).toBeGreaterThan(Date.parse(stamp));
    const removed = await upsert(t.owner, {
      phone_number: "+15550108100",
      channel: "phone",
      conversation_state: { summary: null },
    });
    expect(removed.conversation_state).toEqual({ other: 1 });
  });

  it("only phone conversations count, and a new call keeps the last summary readable", async () => {
    await upsert(t.owner, {
      phone_number: "+15550108200",
      channel: "sms",
      conversation_state: { summary: "sms summary" },
    });
    expect(expectStatus(await t.owner.get("/api/caller-memory?phone_number=%2B15550108200"), 200).summary).toBeNull();
    const call = await upsert(t.owner, {
      phone_number: "+15550108200",
      channel: "phone",
      conversation_state: { summary: "first call" },
    });
    expectStatus(await t.owner.put(`/api/conversations/${call.id}/end`), 200);
    const next = await upsert(t.owner, { phone_number: "+15550108200", channel: "phone" });
    const memory = expectStatus(await t.owner.get("/api/caller-memory?phone_number=%2B15550108200"), 200);
    expect(memory).toMatchObject({ summary: "first call", conversation_id: call.id });
    await upsert(t.owner, {
      phone_number: "+15550108200",
      channel: "phone",
      conversation_state: { summary: "second call" },
    });
    expect(expectStatus(await t.owner.get("/api/caller-memory?phone_number=%2B15550108200"), 200)).toMatchObject({
      summary: "second call",
      conversation_id: next.id,
    });
  });

  it("clearing removes only the summary, keeps the conversation and messages, and is idempotent", async () => {
    const conversation = await upsert(t.owner, {
      phone_number: "+15550108300",
      channel: "phone",
      conversation_state: { summary: "to forget", step: 3 },
    });
    await addMessage(t.owner, conversation.id, { role: "user", content: "kept" });
    expect(expectStatus(await t.owner.delete("/api/caller-memory?phone_number=555.010.8300"), 200)).toEqual({
      phone_number: "+15550108300",
      cleared: true,
    });
    expect(expectStatus(await t.owner.get("/api/caller-memory?phone_number=%2B15550108300"), 200)).toMatchObject({
      summary: null,
      summary_updated_at: null,
      conversation_id: null,
    });
    const kept = expectStatus(await t.owner.get(`/api/conversations/${conversation.id}`), 200);
    expect(kept).toMatchObject({ conversation_state: { step: 3 }, message_count: 1, is_active: true });
    expect(expectStatus(await t.owner.get(`/api/conversations/${conversation.id}/messages`), 200).total).toBe(1);
    expect(expectStatus(await t.owner.delete("/api/caller-memory?phone_number=%2B15550108300"), 200)).toEqual({
      phone_number: "+15550108300",
      cleared: false,
    });
    expect(expectStatus(await t.owner.delete("/api/caller-memory?phone_number=%2B15550108999"), 200)).toEqual({
      phone_number: "+15550108999",
      cleared: false,
    });
  });

  it("another organization neither reads nor clears it", async () => {
    await upsert(t.owner, {
      phone_number: "+15550108400",
      channel: "phone",
      conversation_state: { summary: "private" },
    });
    const other = await tenant();
    expect(
      expectStatus(await other.owner.get("/api/caller-memory?phone_number=%2B15550108400"), 200).summary,
    ).toBeNull();
    expect(expectStatus(await other.owner.delete("/api/caller-memory?phone_number=%2B15550108400"), 200).cleared).toBe(
      false,
    );
    expect(expectStatus(await t.owner.get("/api/caller-memory?phone_number=%2B15550108400"), 200).summary).toBe(
      "private",
    );
  });

  it("422 without a phone number or with one that is not a number; 401 without a key", async () => {
    for (const method of ["GET", "DELETE"]) {
      expect422(await t.owner.request(method, "/api/caller-memory"), [
        { loc: ["query", "phone_number"], type: "missing" },
      ]);
      expect422(await t.owner.request(method, "/api/caller-memory?phone_number="), [
        { loc: ["query", "phone_number"], type: "string_too_short" },
      ]);
      expect422(await t.owner.request(method, "/api/caller-memory?phone_number=abc"), [
        { loc: ["query", "phone_number"], type: "value_error" },
      ]);
      await expect401(anonymousClient(), method, "/api/caller-memory?phone_number=%2B15550100000");
    }
  });
});
