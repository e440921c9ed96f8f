import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, type Tenant } from "@voiceops/platform/testing";
import { call, callFailing, mcpClientOf, openTenant } from "./mcp-helpers.js";

// Each agent tool through the official SDK client over real HTTP, against the test system:
// the happy path, its effect as the REST API shows it, and the isError results of bad calls.

let t: Tenant;
let agent: Client;
let phone: string;

beforeAll(async () => {
  t = await openTenant();
  agent = await mcpClientOf(t.member);
  phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
});

describe("callers and contacts", () => {
  it("lookup_caller on an unknown number: no contact, no memory, not blocked", async () => {
    const found = await call(agent, "lookup_caller", { phone_number: phone.slice(2) });
    expect(found).toMatchObject({
      phone_number: phone,
      contact: null,
      open_service_requests: [],
      upcoming_appointments: [],
    });
    expect(found.memory).toMatchObject({ phone_number: phone, summary: null });
    expect(found.do_not_call).toMatchObject({ blocked: false, entry: null });
  });

  it("save_contact creates by phone, then updates the same contact with only the fields given", async () => {
    const created = await call(agent, "save_contact", { phone_number: phone, name: "Dana Reyes" });
    expect(created).toMatchObject({ phone_number: phone, name: "Dana Reyes", email: null });
    const updated = await call(agent, "save_contact", { phone_number: phone.slice(2), email: "dana@example.com" });
    expect(updated).toMatchObject({ id: created.id, name: "Dana Reyes", email: "dana@example.com" });
    expect((await t.owner.get(`/api/contacts/${created.id}`)).body).toMatchObject({
      name: "Dana Reyes",
      email: "dana@example.com",
    });
    const searched = await call(agent, "search_contacts", { query: "dana r" });
    expect(searched.contacts.map((c: { id: string }) => c.id)).toEqual([created.id]);
  });

  it("create_service_request by phone links the caller's contact; lookup_caller lists it as open", async () => {
    const request = await call(agent, "create_service_request", {
      phone_number: phone,
      description: "Kitchen sink leaking",
      priority: "HIGH",
    });
    expect(request).toMatchObject({ description: "Kitchen sink leaking", priority: "HIGH", status: "new" });
    const read = await call(agent, "get_service_request", { id: request.id });
    expect(read).toEqual(request);
    const found = await call(agent, "lookup_caller", { phone_number: phone });
    expect(found.contact.id).toBe(request.contact_id);
    expect(found.open_service_requests.map((r: { id: string }) => r.id)).toEqual([request.id]);
  });

  it("save_caller_memory keeps a summary that lookup_caller gives back", async () => {
    const saved = await call(agent, "save_caller_memory", {
      phone_number: phone,
      summary: "Leaking sink; prefers mornings.",
    });
    expect(saved).toMatchObject({ phone_number: phone, summary: "Leaking sink; prefers mornings." });
    expect(saved.summary_updated_at).toEqual(expect.any(String));
    const found = await call(agent, "lookup_caller", { phone_number: phone });
    expect(found.memory).toMatchObject({
      summary: "Leaking sink; prefers mornings.",
      conversation_id: saved.conversation_id,
    });
  });

  it("do-not-call: check, add, check again; lookup_caller says blocked", async () => {
    const other = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    expect(await call(agent, "check_do_not_call", { phone_number: other })).toMatchObject({
      phone_number: other,
      blocked: false,
    });
    expect(await call(agent, "add_to_do_not_call", { phone_number: other, reason: "Asked not to be called" })).toEqual({
      added: 1,
      already_listed: 0,
      invalid: [],
    });
    expect(await call(agent, "add_to_do_not_call", { phone_number: other })).toMatchObject({
      added: 0,
      already_listed: 1,
    });
    const checked = await call(agent, "check_do_not_call", { phone_number: other });
    expect(checked).toMatchObject({
      blocked: true,
      entry: { phone_number: other, reason: "Asked not to be called", source: "caller_request" },
    });
    expect((await call(agent, "lookup_caller", { phone_number: other })).do_not_call.blocked).toBe(true);
  });

  it("create_lead upserts the contact", async () => {
    const lead = await call(agent, "create_lead", {
      phone_number: phone,
      notes: "Wants a quote for a water heater",
      source: "phone",
    });
    expect(lead).toMatchObject({
      status: "new",
      notes: "Wants a quote for a water heater",
      contact: { phone_number: phone, name: "Dana Reyes" },
    });
  });
});

describe("scheduling", () => {
  let typeId: string;
  beforeAll(async () => {
    const type = await t.owner.post("/api/scheduling/types", {
      name: "Plumbing visit",
      duration_minutes: 60,
      min_notice_minutes: 0,
    });
    expect(type.status).toBe(201);
    typeId = type.body.id;
  });

  it("list_appointment_types, find_slots by name, hold_slot, book_appointment with the hold, reschedule, cancel", async () => {
    const types = await call(agent, "list_appointment_types");
    expect(types.items.map((x: { name: string }) => x.name)).toContain("Plumbing visit");
    const found = await call(agent, "find_slots", { appointment_type_name: "plumbing VISIT" });
    expect(found.appointment_type_id).toBe(typeId);
    expect(found.slots.length).toBeGreaterThan(2);
    const [first, second] = found.slots;
    const hold = await call(agent, "hold_slot", { appointment_type_id: typeId, start: first.start });
    expect(hold).toMatchObject({ appointment_type_id: typeId, start_at: new Date(first.start).toISOString() });
    // Held: no longer offered.
    const again = await call(agent, "find_slots", { appointment_type_id: typeId });
    expect(again.slots.map((s: { start: string }) => s.start)).not.toContain(first.start);
    const booked = await call(agent, "book_appointment", {
      hold_id: hold.id,
      appointment_type_id: typeId,
      contact: { name: "Dana Reyes", phone_number: phone },
    });
    expect(booked).toMatchObject({ status: "scheduled", start_at: hold.start_at, contact: { phone_number: phone } });
    const found2 = await call(agent, "lookup_caller", { phone_number: phone });
    expect(found2.upcoming_appointments.map((a: { id: string }) => a.id)).toContain(booked.id);
    const moved = await call(agent, "reschedule_appointment", { appointment_id: booked.id, start: second.start });
    expect(moved).toMatchObject({ rescheduled_from_id: booked.id, start_at: new Date(second.start).toISOString() });
    const cancelled = await call(agent, "cancel_appointment", { appointment_id: moved.id, reason: "Fixed it myself" });
    expect(cancelled).toMatchObject({ id: moved.id, status: "cancelled", cancel_reason: "Fixed it myself" });
  });

  it("isError results: a slot that is not one, a conflict, a missing type, an unknown name", async () => {
    const bad = await callFailing(agent, "book_appointment", {
      appointment_type_id: typeId,
      start: "2020-01-01T00:00:00Z",
      contact: { phone_number: phone },
    });
    expect(bad.status).toBe(422);
    expect(bad.detail.map((e: { loc: unknown[] }) => e.loc)).toEqual([["start"]]);
    const neither = await callFailing(agent, "find_slots", {});
    expect(neither).toMatchObject({ status: 422, detail: [{ loc: ["appointment_type_id"], type: "missing" }] });
    const unknown = await callFailing(agent, "find_slots", { appointment_type_name: "Roof repair" });
    expect(unknown.detail[0]).toMatchObject({ loc: ["appointment_type_name"], type: "value_error" });
    expect(unknown.text).toContain("Plumbing visit");
    const { slots } = await call(agent, "find_slots", { appointment_type_id: typeId });
    await call(agent, "hold_slot", { appointment_type_id: typeId, start: slots[0].start });
    const taken = await callFailing(agent, "hold_slot", { appointment_type_id: typeId, start: slots[0].start });
    expect(taken.status).toBe(409);
    expect(taken.text).toMatch(/^Conflict \(HTTP 409\): /);
  });
});

describe("emergencies", () => {
  it("flag_emergency (type defaults to other), get_on_call_technician by skill, dispatch_technician", async () => {
    const tech = await t.owner.post("/api/technicians", { name: "Sam Pipe", skills: ["Plumbing"], is_on_call: true });
    expect(tech.status).toBe(200);
    await t.owner.post("/api/technicians", { name: "Eli Volt", skills: ["electrical"], is_on_call: true });
    const request = await call(agent, "create_service_request", {
      phone_number: phone,
      description: "Water pouring from the ceiling",
    });
    const flagged = await call(agent, "flag_emergency", {
      service_request_id: request.id,
      notes: "Main valve not found",
    });
    expect(flagged).toMatchObject({
      is_emergency: true,
      emergency_type: "other",
      emergency_priority: 1,
      emergency_notes: "Main valve not found",
    });
    const onCall = await call(agent, "get_on_call_technician", { skill: "plumbing" });
    expect(onCall.technician).toMatchObject({ id: tech.body.id, name: "Sam Pipe" });
    expect(onCall.on_call.map((x: { name: string }) => x.name)).toEqual(["Sam Pipe"]);
    expect((await call(agent, "get_on_call_technician")).on_call).toHaveLength(2);
    const dispatch = await call(agent, "dispatch_technician", {
      service_request_id: request.id,
      technician_id: tech.body.id,
    });
    expect(dispatch).toMatchObject({ service_request_id: request.id, technician_id: tech.body.id, status: "assigned" });
    const twice = await callFailing(agent, "dispatch_technician", { service_request_id: request.id });
    expect(twice.status).toBe(409);
  });
});

describe("business knowledge", () => {
  it("get_business_hours: open now around the clock, the week's hours", async () => {
    const hours = await call(agent, "get_business_hours");
    expect(hours).toMatchObject({ timezone: "America/Chicago", open_now: true, next_change_at: null });
    expect(hours.hours.sun).toEqual([{ start: "00:00", end: "24:00" }]);
    expect(hours.local_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[-+]\d\d:\d\d$/);
  });

  it("get_business_hours: the next opening or closing of weekday hours", async () => {
    const weekdays = await openTenant({
      mon: [{ start: "08:00", end: "17:00" }],
      fri: [{ start: "08:00", end: "17:00" }],
    });
    const hours = await call(await mcpClientOf(weekdays.member), "get_business_hours");
    expect(hours.hours).toMatchObject({ mon: [{ start: "08:00", end: "17:00" }], tue: [], sun: [] });
    const next = new Date(hours.next_change_at).getTime();
    expect(next).toBeGreaterThan(Date.now() - 60_000);
    expect(next).toBeLessThan(Date.now() + 7 * 86_400_000);
    expect(hours.next_change_at).toMatch(/T(08|17):00:00-0[56]:00$/);
  });

  it("search_knowledge_base finds a ready source's passage", async () => {
    const source = await t.owner.post("/api/knowledge-base/sources", {
      type: "text",
      title: "Prices",
      text: "A drain cleaning costs 149 dollars. We serve Springfield and Shelbyville.",
    });
    expect(source.status).toBe(201);
    await eventually(
      async () =>
        (await t.owner.get(`/api/knowledge-base/sources/${source.body.id}`)).body.status === "ready" ? true : undefined,
      90_000,
      200,
    );
    const found = await call(agent, "search_knowledge_base", { query: "drain cleaning price", limit: 3 });
    expect(found.results[0]).toMatchObject({ source_id: source.body.id });
    expect(found.results[0].content).toContain("149 dollars");
  });
});

describe("validation and scoping", () => {
  it("every bad argument is named, with the REST API's messages", async () => {
    const bad = await callFailing(agent, "search_contacts", { limit: 500 });
    expect(bad.status).toBe(422);
    expect(bad.detail.map((e: { loc: unknown[]; type: string }) => [e.loc, e.type])).toEqual([
      [["query"], "missing"],
      [["limit"], "less_than_equal"],
    ]);
    expect(bad.text).toContain("- query: Field required");
    expect(bad.text).toContain("- limit: Input should be less than or equal to 50");
    const phoneBad = await callFailing(agent, "lookup_caller", { phone_number: "not a phone" });
    expect(phoneBad.detail).toEqual([expect.objectContaining({ loc: ["phone_number"], type: "value_error" })]);
    const several = await callFailing(agent, "create_service_request", {
      contact_id: "nope",
      priority: "SOON",
      description: "",
    });
    expect(several.detail.map((e: { loc: unknown[] }) => e.loc)).toEqual([
      ["contact_id"],
      ["description"],
      ["priority"],
    ]);
    const typed = await callFailing(agent, "save_contact", { phone_number: 5551234, email: "x" });
    expect(typed.detail.map((e: { loc: unknown[] }) => e.loc)).toEqual([["phone_number"], ["email"]]);
  });

  it("not found is an isError result; another organization's records are invisible", async () => {
    const missing = await callFailing(agent, "get_service_request", { id: randomUUID() });
    expect(missing).toMatchObject({ status: 404 });
    const other = await openTenant();
    const theirs = await other.owner.post("/api/service-requests", { description: "Their job" });
    expect(theirs.status).toBe(201);
    expect((await callFailing(agent, "get_service_request", { id: theirs.body.id })).status).toBe(404);
    expect((await callFailing(agent, "flag_emergency", { service_request_id: theirs.body.id })).status).toBe(404);
    const reference = await callFailing(agent, "dispatch_technician", { service_request_id: theirs.body.id });
    expect(reference.detail).toEqual([expect.objectContaining({ loc: ["service_request_id"] })]);
  });
});

describe("idempotency_key", () => {
  it("a retry with the key answers the first result and creates nothing more; other arguments with it are refused", async () => {
    const key = randomUUID();
    const args = { phone_number: phone, notes: `Retry test ${key}`, idempotency_key: key };
    const first = await call(agent, "create_lead", args);
    const again = await agent.callTool({ name: "create_lead", arguments: { ...args } });
    expect(again.structuredContent).toEqual(first);
    expect(again._meta).toMatchObject({ "voiceops/idempotent-replayed": true });
    const listed = await t.owner.get(`/api/leads?search=${encodeURIComponent(`Retry test ${key}`)}`);
    expect(listed.body.total).toBe(1);
    const other = await callFailing(agent, "create_lead", { ...args, notes: "Something else" });
    expect(other).toMatchObject({ status: 422, detail: [expect.objectContaining({ loc: ["idempotency_key"] })] });
    const bad = await callFailing(agent, "create_lead", { ...args, idempotency_key: "has spaces" });
    expect(bad.detail).toEqual([expect.objectContaining({ loc: ["idempotency_key"] })]);
  });

  it("a tool of several writes replays each (save_contact on an existing number)", async () => {
    const key = randomUUID();
    const args = { phone_number: phone, notes: "Gate code 1234", idempotency_key: key };
    const first = await call(agent, "save_contact", args);
    expect(await call(agent, "save_contact", args)).toEqual(first);
  });
});

describe("LOOKUP activities", () => {
  it("each read tool call is recorded with metadata.tool, hidden unless lookups=true", async () => {
    const own = await openTenant();
    const client = await mcpClientOf(own.owner);
    await call(client, "search_contacts", { query: "anyone" });
    await call(client, "get_business_hours");
    await call(client, "save_caller_memory", { phone_number: phone, summary: "Not a read" });
    const tools = await eventually(async () => {
      const listed = await own.owner.get("/api/activities?lookups=true&activity_type=LOOKUP");
      return listed.body.total >= 2
        ? listed.body.items.map((a: { metadata: { tool: string } }) => a.metadata.tool)
        : undefined;
    });
    expect(tools.sort()).toEqual(["get_business_hours", "search_contacts"]);
    expect(
      (await own.owner.get("/api/activities")).body.items.filter(
        (a: { activity_type: string }) => a.activity_type === "LOOKUP",
      ),
    ).toEqual([]);
  });

  it("records each of many calls at once, in its own organization only", async () => {
    const own = await openTenant();
    const other = await openTenant();
    const [client, otherClient] = await Promise.all([mcpClientOf(own.owner), mcpClientOf(other.owner)]);
    await Promise.all([
      ...Array.from({ length: 25 }, (_, i) => call(client, "search_contacts", { query: `caller ${i}` })),
      ...Array.from({ length: 5 }, () => call(otherClient, "get_business_hours")),
    ]);
    const listed = await eventually(async () => {
      const res = await own.owner.get("/api/activities?activity_type=LOOKUP&page_size=100");
      return res.body.total >= 25 ? res.body : undefined;
    });
    expect(listed.total).toBe(25);
    expect(
      listed.items.every(
        (a: { description: string; metadata: { tool: string } }) =>
          a.metadata.tool === "search_contacts" && a.description === "Agent tool search_contacts",
      ),
    ).toBe(true);
    const others = await eventually(async () => {
      const res = await other.owner.get("/api/activities?activity_type=LOOKUP&page_size=100");
      return res.body.total >= 5 ? res.body : undefined;
    });
    expect(others.items.map((a: { metadata: { tool: string } }) => a.metadata.tool)).toEqual(
      Array(5).fill("get_business_hours"),
    );
  });
});
