import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeEvent, ManualClock, newId, type Subscription } from "@voiceops/platform";
import { AdminClient, eventually, expectStatus, newTenant, testEnv, type Tenant } from "@voiceops/platform/testing";
import {
  DispatchCancelledSchema,
  DispatchUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import { DispatchStatus } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { EventEnvelopeSchema } from "@voiceops/proto/voiceops/events/v1/event_envelope_pb";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import {
  ALERTS,
  createDispatch,
  createRequest,
  createSchedule,
  createTechnician,
  CURRENT,
  DISPATCHES,
  listTechnicians,
  SCHEDULES,
  TECHNICIANS,
  type Items,
  type OnCallTechnician,
  type Schedule,
} from "./helpers.js";

// A system of its own on a manual clock: on-call coverage at the edges of a schedule, the
// "dispatches today" of the auto-pick in the organization's timezone, and the events every
// change publishes through the outbox.

const clock = new ManualClock("2031-01-14T09:00:00Z");
let system: RunningSystem;
let subscription: Subscription;
const events: { type: string; orgId: string; data: Uint8Array }[] = [];

async function tenant(timezone = "UTC"): Promise<Tenant> {
  return newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken), { timezone });
}

beforeAll(async () => {
  system = await startSystem({ env: testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" }), inMemory: true, clock });
  subscription = await system.bus.subscribe({
    durable: `fieldops-events-test-${newId()}`,
    subject: "fieldops.>",
    startAt: "new",
    expireAfterIdleMs: 60_000,
    handler: async (message) => {
      const envelope = fromBinary(EventEnvelopeSchema, message.data);
      events.push({ type: envelope.type, orgId: envelope.orgId, data: message.data });
    },
  });
});

afterAll(async () => {
  await subscription?.stop();
  await system?.stop();
});

describe("on call at the edges of a schedule (half-open)", () => {
  it("is on call from the schedule's start, up to but not at its end", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Shift Worker" });
    await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: "2031-01-14T10:00:00Z",
      end_at: "2031-01-14T12:00:00Z",
    });
    const current = async () => expectStatus(await t.owner.get<Items<OnCallTechnician>>(CURRENT), 200);
    const schedules = async () => expectStatus(await t.owner.get<Items<Schedule>>(SCHEDULES), 200).total;

    clock.set("2031-01-14T09:59:59.999Z");
    expect((await current()).total).toBe(0);
    expect((await listTechnicians(t.owner)).items[0]).toMatchObject({ on_call_now: false, available_now: false });
    expect(await schedules()).toBe(1);

    clock.set("2031-01-14T10:00:00Z");
    expect((await current()).items.map((x) => [x.name, x.on_call_source, x.on_call_until])).toEqual([
      ["Shift Worker", "schedule", "2031-01-14T12:00:00.000Z"],
    ]);
    expect((await listTechnicians(t.owner, "?available_now=true")).total).toBe(1);

    clock.set("2031-01-14T11:59:59.999Z");
    expect((await current()).total).toBe(1);

    clock.set("2031-01-14T12:00:00Z");
    expect((await current()).total).toBe(0);
    expect((await listTechnicians(t.owner, "?is_on_call=true")).total).toBe(0);
    // The listing starts now by default: the schedule has ended.
    expect(await schedules()).toBe(0);
  });
});

describe("auto-pick counts today's dispatches in the organization's timezone", () => {
  it("forgets yesterday's dispatches at local midnight, not at UTC midnight", async () => {
    const t = await tenant("America/Chicago");
    const a = await createTechnician(t.owner, { name: "A", is_on_call: true });
    const b = await createTechnician(t.owner, { name: "B", is_on_call: true });
    // 23:00 on 14 January in Chicago is 05:00 UTC on the 15th.
    clock.set("2031-01-15T05:00:00Z");
    for (let i = 0; i < 2; i++) {
      const dispatch = await createDispatch(t.owner, {
        service_request_id: (await createRequest(t.owner)).id,
        technician_id: a.id,
      });
      expectStatus(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: "completed" }), 200);
    }
    const evening = await createDispatch(t.owner, { service_request_id: (await createRequest(t.owner)).id });
    expect(evening.technician_id).toBe(b.id);
    expectStatus(await t.owner.put(`${DISPATCHES}/${evening.id}`, { status: "completed" }), 200);

    // 00:30 on the 15th in Chicago (06:30 UTC, the same UTC day): nobody has dispatches today.
    clock.set("2031-01-15T06:30:00Z");
    const night = await createDispatch(t.owner, { service_request_id: (await createRequest(t.owner)).id });
    expect(night.technician_id).toBe(a.id);
    expect(night.created_at).toBe("2031-01-15T06:30:00.000Z");
  });
});

describe("events", () => {
  it("publishes a fieldops event through the outbox for every change", async () => {
    clock.set("2031-01-20T12:00:00Z");
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Evented", is_on_call: true });
    expectStatus(await t.owner.put(`${TECHNICIANS}/${technician.id}`, { notes: "n" }), 200);
    const schedule = await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: "2031-01-21T00:00:00Z",
      end_at: "2031-01-21T08:00:00Z",
    });
    expectStatus(await t.owner.put(`${SCHEDULES}/${schedule.id}`, { notes: "n" }), 200);
    expect((await t.owner.delete(`${SCHEDULES}/${schedule.id}`)).status).toBe(204);
    await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: "2031-01-22T00:00:00Z",
      end_at: "2031-01-22T08:00:00Z",
    });
    const dispatch = await createDispatch(t.owner, { service_request_id: (await createRequest(t.owner)).id });
    expectStatus(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: "en_route" }), 200);
    expect((await t.owner.delete(`${DISPATCHES}/${dispatch.id}`)).status).toBe(204);
    const alert = expectStatus(await t.owner.post<{ id: string }>(ALERTS, { location: "L", alert_type: "A" }), 201);
    expectStatus(await t.owner.put(`${ALERTS}/${alert.id}`, { location: "L", alert_type: "B" }), 200);
    expect((await t.owner.delete(`${ALERTS}/${alert.id}`)).status).toBe(204);
    // Deleting the technician cancels the schedule that has not ended.
    expect((await t.owner.delete(`${TECHNICIANS}/${technician.id}`)).status).toBe(200);
    // Reads and refused writes publish nothing.
    expect((await t.owner.get(TECHNICIANS)).status).toBe(200);
    expect((await t.owner.delete(`${DISPATCHES}/${dispatch.id}`)).status).toBe(204);

    const expected = [
      "fieldops.provider.created",
      "fieldops.provider.updated",
      "fieldops.on_call_schedule.created",
      "fieldops.on_call_schedule.updated",
      "fieldops.on_call_schedule.cancelled",
      "fieldops.on_call_schedule.created",
      "fieldops.dispatch.created",
      "fieldops.dispatch.updated",
      "fieldops.dispatch.cancelled",
      "fieldops.urgent_alert.created",
      "fieldops.urgent_alert.updated",
      "fieldops.urgent_alert.deleted",
      "fieldops.on_call_schedule.cancelled",
      "fieldops.provider.deleted",
    ];
    const mine = await eventually(async () => {
      const seen = events.filter((event) => event.orgId === t.orgId);
      return seen.length >= expected.length ? seen : undefined;
    }, 120_000);
    expect(mine.map((event) => event.type).sort()).toEqual([...expected].sort());
    const updated = decodeEvent(
      mine.find((event) => event.type === "fieldops.dispatch.updated")?.data ?? new Uint8Array(),
      DispatchUpdatedSchema,
    );
    expect(updated.payload.dispatch).toMatchObject({ id: dispatch.id, status: DispatchStatus.EN_ROUTE });
    expect(updated.payload.previousStatus).toBe(DispatchStatus.ASSIGNED);
    const cancelled = decodeEvent(
      mine.find((event) => event.type === "fieldops.dispatch.cancelled")?.data ?? new Uint8Array(),
      DispatchCancelledSchema,
    );
    expect(cancelled.payload.previousStatus).toBe(DispatchStatus.EN_ROUTE);
  });
});
