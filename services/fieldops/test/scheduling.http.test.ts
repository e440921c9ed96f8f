import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, newId, type Subscription } from "@voiceops/platform";
import { AdminClient, eventually, expectStatus, locs, testEnv, detailOf } from "@voiceops/platform/testing";
import { EventEnvelopeSchema } from "@voiceops/proto/voiceops/events/v1/event_envelope_pb";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { fieldopsErrors } from "../src/errors.js";
import { createDispatch, createRequest, createTechnician, DISPATCHES } from "./helpers.js";
import {
  APPOINTMENTS,
  availability,
  AVAILABILITY,
  book,
  BOOK,
  createType,
  everyDay,
  manage,
  MANAGE,
  schedulingTenant,
  TYPES,
  type Appointment,
  type AppointmentType,
  type WeeklyHoursInput,
} from "./scheduling-helpers.js";

// Scheduling on a system of its own whose clock stands at Thursday 2026-03-05 12:00 UTC: the
// daylight-saving changes of 2026 (March 8, November 1) lie ahead of it.

const clock = new ManualClock("2026-03-05T12:00:00Z");
let system: RunningSystem;
let admin: AdminClient;
let subscription: Subscription;
const events: { type: string; orgId: string }[] = [];

const tenant = (org: { timezone?: string; business_hours?: WeeklyHoursInput } = {}) =>
  schedulingTenant(system.url, admin, org);
const starts = (slots: { start: string }[]) => slots.map((slot) => slot.start);

beforeAll(async () => {
  system = await startSystem({ env: testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" }), inMemory: true, clock });
  admin = new AdminClient(system.adminUrl, system.adminToken);
  subscription = await system.bus.subscribe({
    durable: `scheduling-events-test-${newId()}`,
    subject: "fieldops.>",
    startAt: "new",
    expireAfterIdleMs: 60_000,
    handler: async (message) => {
      const envelope = fromBinary(EventEnvelopeSchema, message.data);
      events.push({ type: envelope.type, orgId: envelope.orgId });
    },
  });
});

afterAll(async () => {
  await subscription?.stop();
  await system?.stop();
});

describe("appointment types", () => {
  it("creates with defaults (owner or admin), lists active ones by name, changes and deletes them", async () => {
    const t = await tenant();
    expect(expectStatus(await t.member.get(TYPES), 200)).toEqual({ items: [], total: 0 });
    expect((await t.member.post(TYPES, { name: "Nope", duration_minutes: 30 })).status).toBe(403);
    const drain = expectStatus(
      await t.owner.post<AppointmentType>(TYPES, { name: "Drain cleaning", duration_minutes: 90 }),
      201,
    );
    expect(drain).toEqual({
      id: expect.any(String),
      name: "Drain cleaning",
      description: null,
      duration_minutes: 90,
      slot_interval_minutes: 90,
      buffer_before_minutes: 0,
      buffer_after_minutes: 0,
      min_notice_minutes: 60,
      max_days_ahead: 60,
      required_skills: [],
      is_active: true,
      created_at: "2026-03-05T12:00:00.000Z",
      updated_at: "2026-03-05T12:00:00.000Z",
    });
    const annual = expectStatus(
      await t.adminKey.post<AppointmentType>(TYPES, {
        name: "annual inspection",
        duration_minutes: 45,
        required_skills: [" hvac ", "hvac", "gas"],
        buffer_after_minutes: 15,
      }),
      201,
    );
    expect(annual).toMatchObject({
      required_skills: ["hvac", "gas"],
      buffer_after_minutes: 15,
      slot_interval_minutes: 45,
    });
    const listed = expectStatus(await t.member.get<{ items: AppointmentType[]; total: number }>(TYPES), 200);
    expect(listed.items.map((type) => type.name)).toEqual(["annual inspection", "Drain cleaning"]);
    expect(listed.total).toBe(2);

    expect((await t.member.put(`${TYPES}/${drain.id}`, { description: "x" })).status).toBe(403);
    const changed = expectStatus(
      await t.adminKey.put<AppointmentType>(`${TYPES}/${drain.id}`, {
        description: "Snake and flush",
        slot_interval_minutes: 30,
      }),
      200,
    );
    expect(changed).toMatchObject({
      name: "Drain cleaning",
      description: "Snake and flush",
      duration_minutes: 90,
      slot_interval_minutes: 30,
    });
    const back = expectStatus(
      await t.owner.put<AppointmentType>(`${TYPES}/${drain.id}`, { slot_interval_minutes: null, description: null }),
      200,
    );
    expect(back).toMatchObject({ description: null, slot_interval_minutes: 90 });

    expectStatus(await t.owner.put(`${TYPES}/${annual.id}`, { is_active: false }), 200);
    expect(
      expectStatus(await t.member.get<{ items: AppointmentType[] }>(TYPES), 200).items.map((type) => type.name),
    ).toEqual(["Drain cleaning"]);
    expect(
      expectStatus(await t.member.get<{ items: AppointmentType[] }>(`${TYPES}?include_inactive=true`), 200).items.map(
        (type) => type.name,
      ),
    ).toEqual(["annual inspection", "Drain cleaning"]);

    expect((await t.member.delete(`${TYPES}/${annual.id}`)).status).toBe(403);
    expect((await t.owner.delete(`${TYPES}/${annual.id}`)).status).toBe(204);
    expect((await t.owner.delete(`${TYPES}/${annual.id}`)).status).toBe(404);
    expect((await t.owner.put(`${TYPES}/${annual.id}`, { name: "Again" })).status).toBe(404);
    expect(expectStatus(await t.member.get<{ total: number }>(`${TYPES}?include_inactive=true`), 200).total).toBe(1);
  });

  it("422 naming every bad field; another organization's type is 404", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const bad = await t.owner.post(TYPES, {
      duration_minutes: 4,
      buffer_before_minutes: 241,
      max_days_ahead: 0,
      slot_interval_minutes: 2,
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body).sort()).toEqual(
      [
        ["body", "name"],
        ["body", "duration_minutes"],
        ["body", "buffer_before_minutes"],
        ["body", "max_days_ahead"],
        ["body", "slot_interval_minutes"],
      ].sort(),
    );
    expect(locs((await t.owner.post(TYPES, { name: "Long", duration_minutes: 481 })).body)).toEqual([
      ["body", "duration_minutes"],
    ]);
    const type = await createType(t.owner);
    expect(locs((await t.owner.put(`${TYPES}/${type.id}`, { duration_minutes: null })).body)).toEqual([
      ["body", "duration_minutes"],
    ]);
    expect(locs((await t.owner.put(`${TYPES}/not-a-uuid`, { name: "x" })).body)).toEqual([
      ["path", "appointment_type_id"],
    ]);
    expect((await other.owner.put(`${TYPES}/${type.id}`, { name: "Theirs" })).status).toBe(404);
    expect((await other.owner.delete(`${TYPES}/${type.id}`)).status).toBe(404);
    expect(expectStatus(await other.owner.get(TYPES), 200)).toEqual({ items: [], total: 0 });
  });
});

describe("check-availability", () => {
  it("steps through the business hours of each date, the business being the resource without technicians", async () => {
    const t = await tenant();
    const type = await createType(t.owner);
    const week = await availability(t.member, {
      appointment_type_id: type.id,
      date_from: "2026-03-06",
      date_to: "2026-03-09",
    });
    expect(week.appointment_type_id).toBe(type.id);
    expect(week.timezone).toBe("UTC");
    const friday = ["08", "09", "10", "11", "12", "13", "14", "15", "16"].map((hour) => `2026-03-06T${hour}:00:00Z`);
    const monday = friday.map((start) => start.replace("03-06", "03-09"));
    expect(starts(week.slots)).toEqual([...friday, ...monday]);
    expect(week.slots[0]).toEqual({ start: "2026-03-06T08:00:00Z", end: "2026-03-06T09:00:00Z", technician_ids: [] });

    // Default range: today and six more days; nothing before now plus the minimum notice.
    const byDefault = await availability(t.member, { appointment_type_id: type.id });
    expect(starts(byDefault.slots).slice(0, 5)).toEqual(
      ["12", "13", "14", "15", "16"].map((hour) => `2026-03-05T${hour}:00:00Z`),
    );
    expect(byDefault.slots.length).toBe(5 + 9 * 4);
    expect(byDefault.slots.at(-1)?.start).toBe("2026-03-11T16:00:00Z");

    const noticed = await createType(t.owner, { name: "Two hours notice", min_notice_minutes: 120 });
    expect(
      starts(
        (
          await availability(t.member, {
            appointment_type_id: noticed.id,
            date_from: "2026-03-05",
            date_to: "2026-03-05",
          })
        ).slots,
      ),
    ).toEqual(["2026-03-05T14:00:00Z", "2026-03-05T15:00:00Z", "2026-03-05T16:00:00Z"]);
    const soon = await createType(t.owner, { name: "Tomorrow at most", max_days_ahead: 1 });
    const soonSlots = (
      await availability(t.member, { appointment_type_id: soon.id, date_from: "2026-03-05", date_to: "2026-03-12" })
    ).slots;
    expect(soonSlots.at(-1)?.start).toBe("2026-03-06T16:00:00Z");
    const halfHourly = await createType(t.owner, { name: "Half hourly", slot_interval_minutes: 30 });
    const steps = starts(
      (
        await availability(t.member, {
          appointment_type_id: halfHourly.id,
          date_from: "2026-03-06",
          date_to: "2026-03-06",
        })
      ).slots,
    );
    expect(steps.length).toBe(17);
    expect(steps.slice(0, 3)).toEqual(["2026-03-06T08:00:00Z", "2026-03-06T08:30:00Z", "2026-03-06T09:00:00Z"]);
    expect(steps.at(-1)).toBe("2026-03-06T16:00:00Z");
  });

  it("reads dates in the asked timezone and writes times with its offset", async () => {
    const t = await tenant({ timezone: "America/Chicago" });
    const type = await createType(t.owner);
    const berlin = await availability(t.member, {
      appointment_type_id: type.id,
      date_from: "2026-03-10",
      date_to: "2026-03-10",
      timezone: "Europe/Berlin",
    });
    expect(berlin.timezone).toBe("Europe/Berlin");
    expect(berlin.slots.length).toBe(9);
    expect(berlin.slots[0]).toMatchObject({ start: "2026-03-10T14:00:00+01:00", end: "2026-03-10T15:00:00+01:00" });
    const local = await availability(t.member, {
      appointment_type_id: type.id,
      date_from: "2026-03-10",
      date_to: "2026-03-10",
    });
    expect(local.timezone).toBe("America/Chicago");
    expect(local.slots[0]?.start).toBe("2026-03-10T08:00:00-05:00");
  });

  it("keeps a 09:00 slot at 09:00 local across the daylight-saving changes of New York and Chicago", async () => {
    const newYork = await tenant({ timezone: "America/New_York", business_hours: everyDay("09:00", "10:00") });
    const nyType = await createType(newYork.owner);
    const spring = await availability(newYork.member, {
      appointment_type_id: nyType.id,
      date_from: "2026-03-07",
      date_to: "2026-03-09",
    });
    expect(spring.slots).toEqual([
      { start: "2026-03-07T09:00:00-05:00", end: "2026-03-07T10:00:00-05:00", technician_ids: [] },
      { start: "2026-03-08T09:00:00-04:00", end: "2026-03-08T10:00:00-04:00", technician_ids: [] },
      { start: "2026-03-09T09:00:00-04:00", end: "2026-03-09T10:00:00-04:00", technician_ids: [] },
    ]);
    const utc = await availability(newYork.member, {
      appointment_type_id: nyType.id,
      date_from: "2026-03-07",
      date_to: "2026-03-08",
      timezone: "UTC",
    });
    expect(starts(utc.slots)).toEqual(["2026-03-07T14:00:00Z", "2026-03-08T13:00:00Z"]);

    const chicago = await tenant({ timezone: "America/Chicago", business_hours: everyDay("09:00", "10:00") });
    const chType = await createType(chicago.owner, { max_days_ahead: 365 });
    const autumn = await availability(chicago.member, {
      appointment_type_id: chType.id,
      date_from: "2026-10-31",
      date_to: "2026-11-02",
    });
    expect(starts(autumn.slots)).toEqual([
      "2026-10-31T09:00:00-05:00",
      "2026-11-01T09:00:00-06:00",
      "2026-11-02T09:00:00-06:00",
    ]);
    const chSpring = await availability(chicago.member, {
      appointment_type_id: chType.id,
      date_from: "2026-03-07",
      date_to: "2026-03-08",
    });
    expect(starts(chSpring.slots)).toEqual(["2026-03-07T09:00:00-06:00", "2026-03-08T09:00:00-05:00"]);

    // Booked across the change, the appointment is at 09:00 local, 13:00 UTC.
    const booked = await book(newYork.owner, {
      appointment_type_id: nyType.id,
      start: "2026-03-08T09:00:00-04:00",
      contact: { name: "Spring Forward" },
    });
    expect(booked).toMatchObject({ start_at: "2026-03-08T13:00:00.000Z", end_at: "2026-03-08T14:00:00.000Z" });
    // An opening over a whole day of 23 hours: the last hourly slot starts at 23:00 local.
    const allDay = await tenant({
      timezone: "America/New_York",
      business_hours: { sun: [{ start: "00:00", end: "24:00" }] },
    });
    const allDayType = await createType(allDay.owner);
    const short = starts(
      (
        await availability(allDay.member, {
          appointment_type_id: allDayType.id,
          date_from: "2026-03-08",
          date_to: "2026-03-08",
        })
      ).slots,
    );
    expect(short.length).toBe(23);
    expect(short.at(-1)).toBe("2026-03-08T23:00:00-04:00");
  });

  it("lists the free technicians having every required skill; appointments with buffers and dispatches block them", async () => {
    const t = await tenant();
    const alice = await createTechnician(t.owner, { name: "Alice", skills: ["plumbing", "Gas"], is_on_call: true });
    const bob = await createTechnician(t.owner, { name: "bob", skills: ["Plumbing"] });
    await createTechnician(t.owner, { name: "Cara", skills: ["electrical"] });
    await createTechnician(t.owner, { name: "Dan", skills: ["plumbing", "gas"], status: "inactive" });
    const gas = await createType(t.owner, { name: "Gas check", required_skills: ["plumbing", "GAS"] });
    const plumbing = await createType(t.owner, {
      name: "Plumbing",
      required_skills: ["plumbing"],
      buffer_after_minutes: 30,
    });
    const friday = { date_from: "2026-03-06", date_to: "2026-03-06" };
    expect((await availability(t.member, { appointment_type_id: gas.id, ...friday })).slots[0]?.technician_ids).toEqual(
      [alice.id],
    );
    expect(
      (await availability(t.member, { appointment_type_id: plumbing.id, ...friday })).slots[0]?.technician_ids,
    ).toEqual([alice.id, bob.id]);
    expect(
      (await availability(t.member, { appointment_type_id: plumbing.id, technician_id: bob.id, ...friday })).slots[0]
        ?.technician_ids,
    ).toEqual([bob.id]);

    // Bob's 08:00 appointment holds him until 09:30 (30 minutes after): 09:00 is Alice's alone.
    await book(t.owner, {
      appointment_type_id: plumbing.id,
      start: "2026-03-06T08:00:00Z",
      technician_id: bob.id,
      contact: { name: "First" },
    });
    const after = (await availability(t.member, { appointment_type_id: plumbing.id, ...friday })).slots;
    expect(after.slice(0, 3).map((slot) => [slot.start, slot.technician_ids])).toEqual([
      ["2026-03-06T08:00:00Z", [alice.id]],
      ["2026-03-06T09:00:00Z", [alice.id]],
      ["2026-03-06T10:00:00Z", [alice.id, bob.id]],
    ]);

    // An active dispatch takes Alice for the rest of today; tomorrow she is free again.
    const request = await createRequest(t.owner, { category: "plumbing" });
    const dispatch = await createDispatch(t.owner, { service_request_id: request.id, technician_id: alice.id });
    const today = (
      await availability(t.member, { appointment_type_id: plumbing.id, date_from: "2026-03-05", date_to: "2026-03-06" })
    ).slots;
    expect(today.filter((slot) => slot.start.startsWith("2026-03-05")).map((slot) => slot.technician_ids)).toEqual([
      [bob.id],
      [bob.id],
      [bob.id],
      [bob.id],
      [bob.id],
    ]);
    expect(today.find((slot) => slot.start === "2026-03-06T11:00:00Z")?.technician_ids).toEqual([alice.id, bob.id]);
    expect(
      (await availability(t.member, { appointment_type_id: gas.id, date_from: "2026-03-05", date_to: "2026-03-05" }))
        .slots,
    ).toEqual([]);
    expectStatus(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: "completed" }), 200);
    expect(
      (await availability(t.member, { appointment_type_id: gas.id, date_from: "2026-03-05", date_to: "2026-03-05" }))
        .slots.length,
    ).toBe(5);
  });

  it("422 naming each bad field", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const type = await createType(t.owner);
    const theirs = await createTechnician(other.owner, { name: "Not Mine" });
    const check = (body: Record<string, unknown>) =>
      t.member.post(AVAILABILITY, { appointment_type_id: type.id, ...body });
    expect(locs((await check({ date_from: "2026-03-06", date_to: "2026-04-07" })).body)).toEqual([["body", "date_to"]]);
    expect((await check({ date_from: "2026-03-06", date_to: "2026-04-06" })).status).toBe(200);
    expect(locs((await check({ date_from: "2026-03-06", date_to: "2026-03-05" })).body)).toEqual([["body", "date_to"]]);
    expect(locs((await check({ date_from: "2026-02-30" })).body)).toEqual([["body", "date_from"]]);
    // Years run 0001..9999, as for every date field.
    expect(locs((await check({ date_from: "0000-01-01", date_to: "0000-01-02" })).body)).toEqual([
      ["body", "date_from"],
      ["body", "date_to"],
    ]);
    expect(locs((await check({ date_from: "06/03/2026", date_to: "tomorrow" })).body)).toEqual([
      ["body", "date_from"],
      ["body", "date_to"],
    ]);
    expect(locs((await check({ timezone: "Mars/Olympus" })).body)).toEqual([["body", "timezone"]]);
    expect(locs((await check({ technician_id: theirs.id })).body)).toEqual([["body", "technician_id"]]);
    expect(locs((await t.member.post(AVAILABILITY, {})).body)).toEqual([["body", "appointment_type_id"]]);
    expect(locs((await t.member.post(AVAILABILITY, { appointment_type_id: newId() })).body)).toEqual([
      ["body", "appointment_type_id"],
    ]);
    const theirType = await createType(other.owner);
    expect(locs((await t.member.post(AVAILABILITY, { appointment_type_id: theirType.id })).body)).toEqual([
      ["body", "appointment_type_id"],
    ]);
    expectStatus(await t.owner.put(`${TYPES}/${type.id}`, { is_active: false }), 200);
    expect(locs((await check({})).body)).toEqual([["body", "appointment_type_id"]]);
  });

  it("follows the organization's business hours as soon as they change", async () => {
    const t = await tenant();
    const type = await createType(t.owner);
    const weekend = { appointment_type_id: type.id, date_from: "2026-03-06", date_to: "2026-03-07" };
    expect(
      starts((await availability(t.member, weekend)).slots).filter((start) => start.startsWith("2026-03-07")),
    ).toEqual([]);
    const patched = await admin.request("PATCH", `/admin/organizations/${t.orgId}`, {
      business_hours: { sat: [{ start: "10:00", end: "12:00" }] },
    });
    expect(patched.status).toBe(200);
    expect(starts((await availability(t.member, weekend)).slots)).toEqual([
      "2026-03-07T10:00:00Z",
      "2026-03-07T11:00:00Z",
    ]);
  });
});

describe("booking", () => {
  it("books a slot for a contact upserted through the CRM", async () => {
    const t = await tenant();
    const type = await createType(t.owner, { name: "Estimate" });
    const request = await createRequest(t.owner);
    const first = expectStatus(
      await t.member.post<Appointment>(BOOK, {
        appointment_type_id: type.id,
        start: "2026-03-06T09:00:00Z",
        contact: { name: "Jane Booker", phone_number: "(555) 010-3000" },
        service_request_id: request.id,
        notes: " gate code 1234 ",
      }),
      201,
    );
    expect(first).toEqual({
      id: expect.any(String),
      appointment_type_id: type.id,
      appointment_type: { id: type.id, name: "Estimate" },
      contact_id: expect.any(String),
      contact: { id: first.contact_id, name: "Jane Booker", phone_number: "+15550103000" },
      technician_id: null,
      service_request_id: request.id,
      start_at: "2026-03-06T09:00:00.000Z",
      end_at: "2026-03-06T10:00:00.000Z",
      status: "scheduled",
      notes: "gate code 1234",
      cancel_reason: null,
      rescheduled_from_id: null,
      created_at: "2026-03-05T12:00:00.000Z",
      updated_at: "2026-03-05T12:00:00.000Z",
    });
    expect(expectStatus(await t.owner.get(`/api/contacts/${first.contact_id}`), 200)).toMatchObject({
      name: "Jane Booker",
      phone_number: "+15550103000",
      status: "lead",
    });
    const again = await book(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T10:00:00+00:00",
      contact: { phone_number: "555-010-3000", email: "jane@example.com" },
    });
    expect(again.contact_id).toBe(first.contact_id);
    expect(expectStatus(await t.owner.get(`/api/contacts/${first.contact_id}`), 200)).toMatchObject({
      email: "jane@example.com",
    });
    const byId = await book(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T06:00:00-05:00",
      contact_id: first.contact_id,
    });
    expect(byId).toMatchObject({ contact_id: first.contact_id, start_at: "2026-03-06T11:00:00.000Z" });

    const taken = await t.member.post(BOOK, {
      appointment_type_id: type.id,
      start: "2026-03-06T09:00:00Z",
      contact_id: first.contact_id,
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual(detailOf(fieldopsErrors.SLOT_TAKEN()));
  });

  it("picks the free technician with the fewest appointments that day, or the one asked for", async () => {
    const t = await tenant();
    const [alice, bob] = [
      await createTechnician(t.owner, { name: "Alice", skills: ["hvac"] }),
      await createTechnician(t.owner, { name: "Bob", skills: ["hvac"] }),
    ];
    const cara = await createTechnician(t.owner, { name: "Cara", skills: ["roofing"] });
    const type = await createType(t.owner, { required_skills: ["hvac"] });
    const at = (start: string, extra: Record<string, unknown> = {}) =>
      book(t.member, { appointment_type_id: type.id, start, contact: { name: "Pick" }, ...extra });
    expect((await at("2026-03-06T08:00:00Z")).technician_id).toBe(alice.id);
    expect((await at("2026-03-06T09:00:00Z")).technician_id).toBe(bob.id);
    expect((await at("2026-03-06T10:00:00Z")).technician_id).toBe(alice.id);
    expect((await at("2026-03-06T10:00:00Z")).technician_id).toBe(bob.id);
    expect(
      (
        await t.member.post(BOOK, {
          appointment_type_id: type.id,
          start: "2026-03-06T10:00:00Z",
          contact: { name: "Late" },
        })
      ).status,
    ).toBe(409);
    expect((await at("2026-03-06T11:00:00Z", { technician_id: bob.id })).technician_id).toBe(bob.id);
    expect(
      (
        await t.member.post(BOOK, {
          appointment_type_id: type.id,
          start: "2026-03-06T11:00:00Z",
          technician_id: bob.id,
          contact: { name: "Again" },
        })
      ).status,
    ).toBe(409);
    // Another day counts afresh.
    expect((await at("2026-03-09T08:00:00Z")).technician_id).toBe(alice.id);
    const unskilled = await t.member.post(BOOK, {
      appointment_type_id: type.id,
      start: "2026-03-06T12:00:00Z",
      technician_id: cara.id,
      contact: { name: "X" },
    });
    expect(locs(unskilled.body)).toEqual([["body", "technician_id"]]);
  });

  it("422 naming each bad field, and nothing written", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const type = await createType(t.owner, { min_notice_minutes: 60 });
    const theirContact = expectStatus(await other.owner.post<{ id: string }>("/api/contacts", { name: "Theirs" }), 201);
    const theirRequest = await createRequest(other.owner);
    const theirTechnician = await createTechnician(other.owner, { name: "Theirs" });
    const attempt = (body: Record<string, unknown>) =>
      t.member.post(BOOK, {
        appointment_type_id: type.id,
        start: "2026-03-06T09:00:00Z",
        contact: { name: "Bad" },
        ...body,
      });
    expect(locs((await attempt({ start: "2026-03-06T09:15:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "2026-03-06T20:00:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "2026-03-07T09:00:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "2026-03-05T12:00:00Z" })).body)).toEqual([["body", "start"]]);
    expectStatus(await attempt({ start: "2026-03-05T13:00:00Z" }), 201);
    expect(locs((await attempt({ start: "not a time" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ contact: undefined })).body)).toEqual([["body", "contact_id"]]);
    expect(locs((await attempt({ contact: undefined, contact_id: theirContact.id })).body)).toEqual([
      ["body", "contact_id"],
    ]);
    expect(locs((await attempt({ contact: { phone_number: "12" } })).body)).toEqual([
      ["body", "contact", "phone_number"],
    ]);
    expect(locs((await attempt({ service_request_id: theirRequest.id })).body)).toEqual([
      ["body", "service_request_id"],
    ]);
    expect(locs((await attempt({ technician_id: theirTechnician.id })).body)).toEqual([["body", "technician_id"]]);
    expect(locs((await attempt({ start: undefined })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ appointment_type_id: newId(), contact: undefined })).body)).toEqual([
      ["body", "appointment_type_id"],
      ["body", "contact_id"],
    ]);
    expect(expectStatus(await t.owner.get(`${APPOINTMENTS}?date_from=2026-03-01`), 200).total).toBe(1);
    expect(expectStatus(await t.owner.get("/api/contacts"), 200).total).toBe(1);
  });
});

describe("manage", () => {
  it("confirms, completes, cancels and marks no-shows; a finished appointment cannot change", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const type = await createType(t.owner);
    const at = (start: string) =>
      book(t.member, { appointment_type_id: type.id, start, contact: { name: "Manage Me" } });
    const a = await at("2026-03-06T08:00:00Z");
    clock.set("2026-03-05T12:30:00Z");
    const confirmed = await manage(t.member, { appointment_id: a.id, action: "confirm" });
    expect(confirmed).toMatchObject({ status: "confirmed", updated_at: "2026-03-05T12:30:00.000Z" });
    expect((await manage(t.member, { appointment_id: a.id, action: "complete" })).status).toBe("completed");
    for (const action of ["cancel", "confirm", "reschedule", "no_show", "complete"]) {
      const refused = await t.member.post(MANAGE, { appointment_id: a.id, action, start: "2026-03-06T09:00:00Z" });
      expect(refused.status, action).toBe(409);
    }
    const b = await at("2026-03-06T09:00:00Z");
    expect(
      await manage(t.member, { appointment_id: b.id, action: "cancel", reason: "Customer fixed it" }),
    ).toMatchObject({
      status: "cancelled",
      cancel_reason: "Customer fixed it",
    });
    // A cancelled slot is free again.
    expect((await at("2026-03-06T09:00:00Z")).status).toBe("scheduled");
    const c = await at("2026-03-06T10:00:00Z");
    expect((await manage(t.member, { appointment_id: c.id, action: "no_show" })).status).toBe("no_show");
    clock.set("2026-03-05T12:00:00Z");

    expect((await other.owner.post(MANAGE, { appointment_id: c.id, action: "cancel" })).status).toBe(404);
    expect((await t.member.post(MANAGE, { appointment_id: newId(), action: "cancel" })).status).toBe(404);
    expect(locs((await t.member.post(MANAGE, { appointment_id: c.id, action: "explode" })).body)).toEqual([
      ["body", "action"],
    ]);
    expect(locs((await t.member.post(MANAGE, { action: "cancel" })).body)).toEqual([["body", "appointment_id"]]);
  });

  it("reschedules in one transaction: the new appointment, the old one cancelled as rescheduled", async () => {
    const t = await tenant();
    const alice = await createTechnician(t.owner, { name: "Alice" });
    await createTechnician(t.owner, { name: "Bob" });
    const type = await createType(t.owner, { slot_interval_minutes: 30 });
    // Bob has the fewest appointments that day, but a rescheduled appointment keeps its technician.
    const old = await book(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T08:00:00Z",
      technician_id: alice.id,
      contact: { name: "Moving" },
    });
    const moved = await manage(t.member, {
      appointment_id: old.id,
      action: "reschedule",
      start: "2026-03-06T08:30:00Z",
    });
    expect(moved).toMatchObject({
      status: "scheduled",
      rescheduled_from_id: old.id,
      technician_id: alice.id,
      contact_id: old.contact_id,
      start_at: "2026-03-06T08:30:00.000Z",
      end_at: "2026-03-06T09:30:00.000Z",
    });
    expect(moved.id).not.toBe(old.id);
    const listed = expectStatus(
      await t.member.get<{ items: Appointment[] }>(`${APPOINTMENTS}?date_from=2026-03-06`),
      200,
    ).items;
    expect(listed.map((item) => [item.id, item.status, item.cancel_reason])).toEqual([
      [old.id, "cancelled", "rescheduled"],
      [moved.id, "scheduled", null],
    ]);
    expect(locs((await t.member.post(MANAGE, { appointment_id: moved.id, action: "reschedule" })).body)).toEqual([
      ["body", "start"],
    ]);
    expect(
      locs(
        (await t.member.post(MANAGE, { appointment_id: moved.id, action: "reschedule", start: "2026-03-06T08:10:00Z" }))
          .body,
      ),
    ).toEqual([["body", "start"]]);
    expect(
      (await t.member.post(MANAGE, { appointment_id: old.id, action: "reschedule", start: "2026-03-06T11:00:00Z" }))
        .status,
    ).toBe(409);
  });

  it("a reschedule onto a taken slot changes nothing", async () => {
    const t = await tenant();
    const type = await createType(t.owner);
    const a = await book(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T10:00:00Z",
      contact: { name: "Stay" },
    });
    await book(t.member, { appointment_type_id: type.id, start: "2026-03-06T11:00:00Z", contact: { name: "Blocker" } });
    const refused = await t.member.post(MANAGE, {
      appointment_id: a.id,
      action: "reschedule",
      start: "2026-03-06T11:00:00Z",
    });
    expect(refused.status).toBe(409);
    const listed = expectStatus(
      await t.member.get<{ items: Appointment[]; total: number }>(`${APPOINTMENTS}?date_from=2026-03-06`),
      200,
    );
    expect(listed.total).toBe(2);
    expect(listed.items.find((item) => item.id === a.id)).toMatchObject({ status: "scheduled", cancel_reason: null });
  });
});

describe("appointments listing", () => {
  it("pages soonest first from today in the organization's timezone, with filters", async () => {
    const [t, other] = await Promise.all([tenant({ timezone: "America/Chicago" }), tenant()]);
    const alice = await createTechnician(t.owner, { name: "Alice" });
    const type = await createType(t.owner);
    const at = (start: string, extra: Record<string, unknown> = {}) =>
      book(t.member, { appointment_type_id: type.id, start, contact: { name: "Lister" }, ...extra });
    const monday = await at("2026-03-09T08:00:00-05:00");
    const friday = await at("2026-03-06T16:00:00-06:00");
    const tuesday = await at("2026-03-10T09:00:00-05:00", {
      contact: { name: "Someone Else", phone_number: "555-010-4444" },
    });
    const all = expectStatus(
      await t.member.get<{ items: Appointment[]; total: number; page: number; page_size: number }>(APPOINTMENTS),
      200,
    );
    expect(all).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(all.items.map((item) => item.id)).toEqual([friday.id, monday.id, tuesday.id]);
    const ids = async (query: string) =>
      expectStatus(await t.member.get<{ items: Appointment[] }>(`${APPOINTMENTS}?${query}`), 200).items.map(
        (item) => item.id,
      );
    // Friday 16:00 in Chicago is Friday 22:00 UTC: a local date, not a UTC one.
    expect(await ids("date_from=2026-03-06&date_to=2026-03-06")).toEqual([friday.id]);
    expect(await ids("date_from=2026-03-07")).toEqual([monday.id, tuesday.id]);
    expect(await ids("date_from=2026-03-07&date_to=2026-03-09")).toEqual([monday.id]);
    expect(await ids(`technician_id=${alice.id}`)).toEqual([friday.id, monday.id, tuesday.id]);
    expect(await ids(`contact_id=${tuesday.contact_id}`)).toEqual([tuesday.id]);
    await manage(t.member, { appointment_id: monday.id, action: "cancel" });
    expect(await ids("status=cancelled")).toEqual([monday.id]);
    expect(await ids("status=scheduled")).toEqual([friday.id, tuesday.id]);
    const second = expectStatus(
      await t.member.get<{ items: Appointment[]; total: number }>(`${APPOINTMENTS}?page=2&page_size=2`),
      200,
    );
    expect(second.items.map((item) => item.id)).toEqual([tuesday.id]);
    expect(second.total).toBe(3);
    expect(
      expectStatus(await t.member.get<{ items: Appointment[]; total: number }>(`${APPOINTMENTS}?page=9`), 200),
    ).toMatchObject({ items: [], total: 3 });
    // Past appointments need an earlier date_from.
    clock.set("2026-03-09T18:00:00Z");
    expect(await ids("")).toEqual([monday.id, tuesday.id]);
    clock.set("2026-03-05T12:00:00Z");

    expect(expectStatus(await other.owner.get(APPOINTMENTS), 200)).toMatchObject({ items: [], total: 0 });
    expect(locs((await t.member.get(`${APPOINTMENTS}?date_from=2026-03-09&date_to=2026-03-08`)).body)).toEqual([
      ["query", "date_to"],
    ]);
    expect(locs((await t.member.get(`${APPOINTMENTS}?date_from=yesterday`)).body)).toEqual([["query", "date_from"]]);
    expect(locs((await t.member.get(`${APPOINTMENTS}?page_size=101&status=done&technician_id=x`)).body).sort()).toEqual(
      [
        ["query", "page_size"],
        ["query", "status"],
        ["query", "technician_id"],
      ].sort(),
    );
  });
});

describe("events", () => {
  it("publishes every change of types and appointments through the outbox", async () => {
    const t = await tenant();
    const type = await createType(t.owner);
    await t.owner.put(`${TYPES}/${type.id}`, { name: "Renamed" });
    const a = await book(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T08:00:00Z",
      contact: { name: "Eventful" },
    });
    await manage(t.member, { appointment_id: a.id, action: "confirm" });
    const moved = await manage(t.member, { appointment_id: a.id, action: "reschedule", start: "2026-03-06T09:00:00Z" });
    await manage(t.member, { appointment_id: moved.id, action: "cancel" });
    const throwaway = await createType(t.owner, { name: "Gone" });
    await t.owner.delete(`${TYPES}/${throwaway.id}`);
    const expected = [
      "fieldops.appointment_type.created",
      "fieldops.appointment_type.updated",
      "fieldops.appointment.booked",
      "fieldops.appointment.updated",
      "fieldops.appointment.rescheduled",
      "fieldops.appointment.cancelled",
      "fieldops.appointment_type.created",
      "fieldops.appointment_type.deleted",
    ];
    const seen = await eventually(async () => {
      const mine = events.filter((event) => event.orgId === t.orgId).map((event) => event.type);
      return mine.length >= expected.length ? mine : undefined;
    });
    expect(seen).toEqual(expected);
  });
});
