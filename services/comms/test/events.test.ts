import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DescMessage } from "@bufbuild/protobuf";
import { decodeEvent, enumToJson, type Subscription } from "@voiceops/platform";
import { AdminClient, eventually, expectStatus, newTenant, testEnv, type Tenant } from "@voiceops/platform/testing";
import {
  ActivityCreatedSchema,
  CallDeletedSchema,
  CallEndedSchema,
  ConversationChangedSchema,
  ConversationDeletedSchema,
  ConversationMessageAddedSchema,
  LookupsRecordedSchema,
  RecordingStoredSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import { ActivityTypeSchema, CallChannelSchema } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";

// The comms.* events, published through the outbox as the changes commit: what analytics and
// the other services consume.

const SCHEMAS: Record<string, DescMessage> = {
  "comms.activity.created": ActivityCreatedSchema,
  "comms.call.ended": CallEndedSchema,
  "comms.call.deleted": CallDeletedSchema,
  "comms.call.recording_stored": RecordingStoredSchema,
  "comms.conversation.created": ConversationChangedSchema,
  "comms.conversation.updated": ConversationChangedSchema,
  "comms.conversation.ended": ConversationChangedSchema,
  "comms.conversation.deleted": ConversationDeletedSchema,
  "comms.conversation.message_added": ConversationMessageAddedSchema,
  "comms.lookups.recorded": LookupsRecordedSchema,
};

interface Seen {
  type: string;
  orgId: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  payload: any;
}

describe("comms events", () => {
  let system: RunningSystem;
  let subscription: Subscription;
  let t: Tenant;
  let internalKey: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    const env = testEnv();
    internalKey = env.INTERNAL_API_KEY ?? "";
    system = await startSystem({ env, inMemory: true });
    subscription = await system.bus.subscribe({
      durable: `comms-events-test-${randomUUID().slice(0, 8)}`,
      subject: "comms.>",
      startAt: "new",
      expireAfterIdleMs: 60_000,
      handler: async (message) => {
        const schema = SCHEMAS[message.subject];
        if (!schema) return;
        const event = decodeEvent(message.data, schema);
        seen.push({ type: event.type, orgId: event.orgId, payload: event.payload });
      },
    });
    t = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  });
  afterAll(async () => {
    await subscription?.stop();
    await system?.stop();
  });

  const ofType = (type: string) => seen.filter((e) => e.orgId === t.orgId && e.type === type);
  const waitFor = (type: string, n = 1) =>
    eventually(async () => (ofType(type).length >= n ? ofType(type) : undefined), 120_000);

  it("an activity: comms.activity.created; a call's: comms.call.ended too", async () => {
    const note = expectStatus(await t.owner.post("/api/activities", { activity_type: "NOTE", description: "n" }), 201);
    const [created] = await waitFor("comms.activity.created");
    expect(created?.payload.activity).toMatchObject({ id: note.id, description: "n" });
    expect(enumToJson(ActivityTypeSchema, created?.payload.activity.activityType)).toBe("NOTE");

    const call = await t.owner.request("POST", "/api/activities", {
      body: {
        activity_type: "CALL_ENDED",
        session_id: "ev-1",
        metadata: { channel: "web", duration_seconds: 9 },
        occurred_at: "2026-01-01T00:00:00Z",
      },
      headers: { "x-internal-key": internalKey },
    });
    expectStatus(call, 201);
    const [ended] = await waitFor("comms.call.ended");
    expect(ended?.payload.call).toMatchObject({ sessionId: "ev-1", activityId: call.body.id, durationSeconds: 9 });
    expect(enumToJson(CallChannelSchema, ended?.payload.call.channel)).toBe("web");
    await waitFor("comms.activity.created", 2);
  });

  it("conversations: created, updated, message_added, ended, deleted", async () => {
    const conversation = expectStatus(
      await t.owner.post("/api/conversations", { phone_number: "+15550401000", channel: "phone" }),
      201,
    );
    expectStatus(
      await t.owner.post("/api/conversations", {
        phone_number: "+15550401000",
        channel: "phone",
        conversation_state: { summary: "s" },
      }),
      201,
    );
    expectStatus(
      await t.owner.post(`/api/conversations/${conversation.id}/messages`, { role: "user", content: "hi" }),
      201,
    );
    expectStatus(await t.owner.put(`/api/conversations/${conversation.id}/end`), 200);
    expectStatus(await t.owner.put(`/api/conversations/${conversation.id}/end`), 200);
    expect((await t.owner.delete(`/api/conversations/${conversation.id}`)).status).toBe(204);

    expect((await waitFor("comms.conversation.created"))[0]?.payload.conversation.id).toBe(conversation.id);
    expect((await waitFor("comms.conversation.updated"))[0]?.payload.conversation.conversationState).toMatchObject({
      summary: "s",
    });
    expect((await waitFor("comms.conversation.message_added"))[0]?.payload).toMatchObject({
      messageCount: 1,
      message: { content: "hi" },
    });
    expect((await waitFor("comms.conversation.deleted"))[0]?.payload.conversationId).toBe(conversation.id);
    // Ending twice changes it once.
    expect(await waitFor("comms.conversation.ended")).toHaveLength(1);
  });

  it("recordings and call deletion", async () => {
    const stored = await fetch(`${system.url}/api/calls/ev-1/recording`, {
      method: "PUT",
      headers: { "x-api-key": t.owner.apiKey ?? "", "content-type": "audio/wav" },
      body: "RIFF",
    });
    expect(stored.status).toBe(200);
    expect((await waitFor("comms.call.recording_stored"))[0]?.payload).toMatchObject({
      sessionId: "ev-1",
      bytes: 4n,
      contentType: "audio/wav",
    });
    expectStatus(await t.owner.delete("/api/calls?hours_back=8760"), 200);
    const [deleted] = await waitFor("comms.call.deleted");
    expect(deleted?.payload.sessionId).toBe("ev-1");
    expect(deleted?.payload.activityIds).toHaveLength(1);
  });

  it("agent read tools' LOOKUP activities: comms.lookups.recorded, one event for those recorded together", async () => {
    const toolCall = (name: string, args: Record<string, unknown>) =>
      fetch(`${system.url}/mcp`, {
        method: "POST",
        headers: {
          "x-api-key": t.owner.apiKey ?? "",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
      }).then((res) => res.json());
    await Promise.all([toolCall("search_contacts", { query: "nobody" }), toolCall("get_business_hours", {})]);
    const recorded = await eventually(async () => {
      const events = ofType("comms.lookups.recorded");
      const lookups = events.flatMap((event) => event.payload.lookups);
      return lookups.length >= 2 ? { events, lookups } : undefined;
    }, 120_000);
    expect(recorded.events.length).toBeLessThanOrEqual(2);
    expect(recorded.lookups.map((l: { tool: string }) => l.tool).sort()).toEqual([
      "get_business_hours",
      "search_contacts",
    ]);
    // Each is the LOOKUP activity listed with lookups=true.
    const listed = expectStatus(await t.owner.get("/api/activities?lookups=true&activity_type=LOOKUP"), 200);
    expect(listed.items.map((a: { id: string }) => a.id).sort()).toEqual(
      recorded.lookups.map((l: { activityId: string }) => l.activityId).sort(),
    );
    // Not also as activities created one by one.
    expect(
      ofType("comms.activity.created").filter(
        (e) => enumToJson(ActivityTypeSchema, e.payload.activity.activityType) === "LOOKUP",
      ),
    ).toEqual([]);
  });
});
