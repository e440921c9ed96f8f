import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, newId, pgErrorCode, PgErrorCode } from "@voiceops/platform";
import { AdminClient, expectStatus, locs, testEnv, type ApiClient, detailOf } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { fieldopsErrors } from "../src/errors.js";
import { createTechnician } from "./helpers.js";
import {
  APPOINTMENTS,
  availability,
  book,
  BOOK,
  createType,
  schedulingTenant,
  type Appointment,
} from "./scheduling-helpers.js";

// Slot holds on systems of their own whose clock stands at Thursday 2026-03-05 12:00 UTC; the
// slots held are on Friday 2026-03-06 (default business hours, 08:00-17:00 UTC). The clock is
// moved to cross a hold's expiry and put back.

const HOLDS = "/api/scheduling/holds";
const NOW = "2026-03-05T12:00:00Z";

interface SlotHold {
  id: string;
  appointment_type_id: string;
  technician_id: string | null;
  start_at: string;
  end_at: string;
  expires_at: string;
}

async function hold(client: ApiClient, body: Record<string, unknown>): Promise<SlotHold> {
  return expectStatus(await client.post<SlotHold>(HOLDS, body), 201);
}

/** Who check-availability offers at `start` on 2026-03-06 (undefined: the slot is not offered). */
async function offeredAt(
  client: ApiClient,
  typeId: string,
  start: string,
  technicianId?: string,
): Promise<string[] | undefined> {
  const result = await availability(client, {
    appointment_type_id: typeId,
    date_from: "2026-03-06",
    date_to: "2026-03-06",
    timezone: "UTC",
    technician_id: technicianId,
  });
  return result.slots.find((slot) => slot.start === start)?.technician_ids;
}

describe("slot holds", () => {
  const clock = new ManualClock(NOW);
  let system: RunningSystem;
  let admin: AdminClient;
  const tenant = () => schedulingTenant(system.url, admin, { timezone: "UTC" });

  beforeAll(async () => {
    // SLOT_HOLD_SECONDS unset: holds last the default 300 seconds.
    system = await startSystem({ env: testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" }), inMemory: true, clock });
    admin = new AdminClient(system.adminUrl, system.adminToken);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it("holds a slot for 300 seconds by default, choosing the technician as booking does", async () => {
    const t = await tenant();
    const alice = await createTechnician(t.owner, { name: "Alice" });
    const bob = await createTechnician(t.owner, { name: "Bob" });
    const type = await createType(t.owner);
    // Alice has an appointment that day, so the fewest-appointments rule picks Bob.
    await book(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T08:00:00Z",
      technician_id: alice.id,
      contact: { name: "Earlier" },
    });
    const held = await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z" });
    expect(held).toEqual({
      id: expect.any(String),
      appointment_type_id: type.id,
      technician_id: bob.id,
      start_at: "2026-03-06T09:00:00.000Z",
      end_at: "2026-03-06T10:00:00.000Z",
      expires_at: "2026-03-05T12:05:00.000Z",
    });
    // An RFC 3339 start with an offset is the same instant; technician_id holds that one.
    expect(
      await hold(t.member, {
        appointment_type_id: type.id,
        start: "2026-03-06T04:00:00-05:00",
        technician_id: alice.id,
      }),
    ).toMatchObject({
      technician_id: alice.id,
      start_at: "2026-03-06T09:00:00.000Z",
    });
    // Without technicians the business itself is held.
    const solo = await tenant();
    const soloType = await createType(solo.owner);
    expect(await hold(solo.member, { appointment_type_id: soloType.id, start: "2026-03-06T09:00:00Z" })).toMatchObject({
      technician_id: null,
    });
    expect(await offeredAt(solo.member, soloType.id, "2026-03-06T09:00:00Z")).toBeUndefined();
    expect(
      (
        await solo.member.post(BOOK, {
          appointment_type_id: soloType.id,
          start: "2026-03-06T09:00:00Z",
          contact: { name: "Late" },
        })
      ).status,
    ).toBe(409);
  });

  it("422 when start is not a slot or a field is bad; 409 when the slot is booked or held", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const alice = await createTechnician(t.owner, { name: "Alice" });
    const theirs = await createTechnician(other.owner, { name: "Theirs" });
    const type = await createType(t.owner);
    const attempt = (body: Record<string, unknown>) =>
      t.member.post(HOLDS, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z", ...body });
    expect(locs((await attempt({ start: "2026-03-06T09:15:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "2026-03-06T20:00:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "2026-03-07T09:00:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "2026-03-05T11:00:00Z" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: undefined })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ start: "tomorrow" })).body)).toEqual([["body", "start"]]);
    expect(locs((await attempt({ appointment_type_id: newId() })).body)).toEqual([["body", "appointment_type_id"]]);
    expect(locs((await attempt({ technician_id: theirs.id })).body)).toEqual([["body", "technician_id"]]);
    expect(locs((await attempt({ technician_id: "nope" })).body)).toEqual([["body", "technician_id"]]);

    await book(t.member, { appointment_type_id: type.id, start: "2026-03-06T10:00:00Z", contact: { name: "Booked" } });
    const booked = await attempt({ start: "2026-03-06T10:00:00Z", technician_id: alice.id });
    expect(booked.status).toBe(409);
    expect(booked.body).toEqual(detailOf(fieldopsErrors.SLOT_TAKEN()));
    await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z" });
    const held = await attempt({});
    expect(held.status).toBe(409);
    expect(held.body).toEqual(detailOf(fieldopsErrors.SLOT_TAKEN()));
    const bookHeld = await t.member.post(BOOK, {
      appointment_type_id: type.id,
      start: "2026-03-06T09:00:00Z",
      contact: { name: "Too late" },
    });
    expect(bookHeld.status).toBe(409);
    expect(bookHeld.body).toEqual(detailOf(fieldopsErrors.SLOT_TAKEN()));
    // The next slot is free: back to back is no overlap.
    await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T11:00:00Z" });
  });

  it("check-availability leaves a held slot out for its technician only, buffers included", async () => {
    const t = await tenant();
    const alice = await createTechnician(t.owner, { name: "Alice" });
    const bob = await createTechnician(t.owner, { name: "Bob" });
    const type = await createType(t.owner, { slot_interval_minutes: 30, buffer_after_minutes: 30 });
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toEqual([alice.id, bob.id]);
    const held = await hold(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T09:00:00Z",
      technician_id: bob.id,
    });
    expect(held.technician_id).toBe(bob.id);
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toEqual([alice.id]);
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z", bob.id)).toBeUndefined();
    // The hold keeps 09:00-10:30 (30 minutes of buffer after); 08:00 ends with its buffer at 09:30.
    expect(await offeredAt(t.member, type.id, "2026-03-06T10:00:00Z", bob.id)).toBeUndefined();
    expect(await offeredAt(t.member, type.id, "2026-03-06T08:00:00Z", bob.id)).toBeUndefined();
    expect(await offeredAt(t.member, type.id, "2026-03-06T10:30:00Z", bob.id)).toEqual([bob.id]);
    expect(await offeredAt(t.member, type.id, "2026-03-06T08:30:00Z", bob.id)).toBeUndefined();
    // Alice is still bookable then, and booking without a technician gets her.
    expect(
      (
        await book(t.member, {
          appointment_type_id: type.id,
          start: "2026-03-06T09:00:00Z",
          contact: { name: "Alice's" },
        })
      ).technician_id,
    ).toBe(alice.id);
  });

  it("books a held slot with hold_id (start omitted): its start and technician, and the hold ends", async () => {
    const t = await tenant();
    await createTechnician(t.owner, { name: "Alice" });
    const bob = await createTechnician(t.owner, { name: "Bob" });
    const type = await createType(t.owner);
    const other = await createType(t.owner, { name: "Other" });
    const held = await hold(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T09:00:00Z",
      technician_id: bob.id,
    });
    const attempt = (body: Record<string, unknown>) =>
      t.member.post(BOOK, { appointment_type_id: type.id, hold_id: held.id, contact: { name: "Holder" }, ...body });

    // What the hold is for may be repeated, not changed; a bad field changes nothing.
    expect(locs((await attempt({ start: "2026-03-06T10:00:00Z" })).body)).toEqual([["body", "start"]]);
    expect(
      locs((await attempt({ technician_id: (await createTechnician(t.owner, { name: "Cara" })).id })).body),
    ).toEqual([["body", "technician_id"]]);
    expect(locs((await attempt({ appointment_type_id: other.id })).body)).toEqual([["body", "appointment_type_id"]]);
    expect(locs((await attempt({ hold_id: "not-a-uuid" })).body)).toEqual([["body", "hold_id"]]);
    expect(locs((await attempt({ contact: undefined })).body)).toEqual([["body", "contact_id"]]);
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z", bob.id)).toBeUndefined();

    const booked: Appointment = expectStatus(await attempt({}), 201);
    expect(booked).toMatchObject({
      appointment_type_id: type.id,
      technician_id: bob.id,
      start_at: "2026-03-06T09:00:00.000Z",
      end_at: "2026-03-06T10:00:00.000Z",
      status: "scheduled",
      contact: { name: "Holder" },
    });
    // The hold has ended: it can be neither booked again nor released.
    const again = await attempt({});
    expect(again.status).toBe(409);
    expect(again.body).toEqual(detailOf(fieldopsErrors.SLOT_HOLD_GONE()));
    expect((await t.member.delete(`${HOLDS}/${held.id}`)).status).toBe(404);
    const listed = expectStatus(
      await t.member.get<{ items: Appointment[]; total: number }>(
        `${APPOINTMENTS}?date_from=2026-03-06&date_to=2026-03-06`,
      ),
      200,
    );
    expect(listed.items.map((item) => [item.technician_id, item.start_at])).toEqual([
      [bob.id, "2026-03-06T09:00:00.000Z"],
    ]);
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z", bob.id)).toBeUndefined();

    // The start and technician may be given when they are the hold's.
    const second = await hold(t.member, {
      appointment_type_id: type.id,
      start: "2026-03-06T11:00:00Z",
      technician_id: bob.id,
    });
    expect(
      await book(t.member, {
        appointment_type_id: type.id,
        hold_id: second.id,
        start: "2026-03-06T06:00:00-05:00",
        technician_id: bob.id,
        contact: { name: "Exact" },
      }),
    ).toMatchObject({
      technician_id: bob.id,
      start_at: "2026-03-06T11:00:00.000Z",
    });
  });

  it("an unknown hold, or another organization's: 409 to book, 404 to release", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const type = await createType(t.owner);
    const theirType = await createType(other.owner);
    const theirs = await hold(other.member, { appointment_type_id: theirType.id, start: "2026-03-06T09:00:00Z" });
    for (const holdId of [newId(), theirs.id]) {
      const booked = await t.member.post(BOOK, {
        appointment_type_id: type.id,
        hold_id: holdId,
        contact: { name: "Nobody" },
      });
      expect(booked.status).toBe(409);
      expect(booked.body).toEqual(detailOf(fieldopsErrors.SLOT_HOLD_GONE()));
      const released = await t.member.delete(`${HOLDS}/${holdId}`);
      expect(released.status).toBe(404);
      expect(released.body).toEqual({ detail: "Slot hold not found" });
    }
    expect(expectStatus(await t.owner.get(`${APPOINTMENTS}?date_from=2026-03-01`), 200).total).toBe(0);
    expect(expectStatus(await t.owner.get("/api/contacts"), 200).total).toBe(0);
    // Their hold stands.
    expect(await offeredAt(other.member, theirType.id, "2026-03-06T09:00:00Z")).toBeUndefined();
    expect(locs((await t.member.delete(`${HOLDS}/not-a-uuid`)).body)).toEqual([["path", "hold_id"]]);
  });

  it("a release answers 204 and the slot is offered again at once", async () => {
    const t = await tenant();
    const alice = await createTechnician(t.owner, { name: "Alice" });
    const type = await createType(t.owner);
    const held = await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z" });
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toBeUndefined();
    const released = await t.member.delete(`${HOLDS}/${held.id}`);
    expect(released.status).toBe(204);
    expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toEqual([alice.id]);
    expect((await t.member.delete(`${HOLDS}/${held.id}`)).status).toBe(404);
    const booked = await t.member.post(BOOK, {
      appointment_type_id: type.id,
      hold_id: held.id,
      contact: { name: "Released" },
    });
    expect(booked.status).toBe(409);
    expect(
      (await book(t.member, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z", contact: { name: "Next" } }))
        .technician_id,
    ).toBe(alice.id);
  });

  it("expires at expires_at: then the slot is offered, held and booked by others, and its own booking is 409", async () => {
    const t = await tenant();
    const alice = await createTechnician(t.owner, { name: "Alice" });
    const type = await createType(t.owner);
    const first = await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z" });
    const second = await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T10:00:00Z" });
    try {
      clock.set(new Date(Date.parse(NOW) + 300_000 - 1));
      expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toBeUndefined();
      expect((await t.member.post(HOLDS, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z" })).status).toBe(
        409,
      );

      clock.set(first.expires_at);
      expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toEqual([alice.id]);
      const late = await t.member.post(BOOK, {
        appointment_type_id: type.id,
        hold_id: first.id,
        contact: { name: "Too late" },
      });
      expect(late.status).toBe(409);
      expect(late.body).toEqual(detailOf(fieldopsErrors.SLOT_HOLD_GONE()));
      // Another caller holds the first slot, and books the second one directly.
      const taken = await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T09:00:00Z" });
      expect(taken).toMatchObject({ technician_id: alice.id, expires_at: "2026-03-05T12:10:00.000Z" });
      expect(
        (
          await book(t.member, {
            appointment_type_id: type.id,
            start: "2026-03-06T10:00:00Z",
            contact: { name: "Direct" },
          })
        ).technician_id,
      ).toBe(alice.id);
      expect(
        (await t.member.post(BOOK, { appointment_type_id: type.id, hold_id: second.id, contact: { name: "Too late" } }))
          .status,
      ).toBe(409);
    } finally {
      clock.set(NOW);
    }
  });
});

describe("slot holds under concurrency", () => {
  const CONCURRENT = 20;
  const SLOT = "2026-03-06T09:00:00Z";
  const clock = new ManualClock(NOW);
  let system: RunningSystem;
  let admin: AdminClient;

  beforeAll(async () => {
    system = await startSystem({
      env: testEnv({ RATE_LIMIT_PER_MINUTE: "1000000", SLOT_HOLD_SECONDS: "45" }),
      inMemory: true,
      clock,
    });
    admin = new AdminClient(system.adminUrl, system.adminToken);
  });

  afterAll(async () => {
    await system?.stop();
  });

  async function setUp(withTechnician = true) {
    const t = await schedulingTenant(system.url, admin, { timezone: "UTC" });
    const technician = withTechnician ? await createTechnician(t.owner, { name: "Only One" }) : undefined;
    const type = await createType(t.owner);
    return { t, technician, type };
  }

  async function activeAppointments(client: ApiClient): Promise<Appointment[]> {
    return expectStatus(
      await client.get<{ items: Appointment[] }>(
        `${APPOINTMENTS}?date_from=2026-03-06&date_to=2026-03-06&status=scheduled`,
      ),
      200,
    ).items;
  }

  it(`${CONCURRENT} simultaneous holds of one technician's slot: exactly one 201, lasting SLOT_HOLD_SECONDS`, async () => {
    const { t, technician, type } = await setUp();
    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, index) =>
        t.member.post<SlotHold>(HOLDS, {
          appointment_type_id: type.id,
          start: SLOT,
          ...(index % 2 === 0 ? { technician_id: technician?.id } : {}),
        }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([
      201,
      ...Array.from({ length: CONCURRENT - 1 }, () => 409),
    ]);
    for (const refused of responses.filter((response) => response.status === 409))
      expect(refused.body).toEqual(detailOf(fieldopsErrors.SLOT_TAKEN()));
    const granted = responses.find((response) => response.status === 201)?.body as SlotHold;
    expect(granted).toMatchObject({
      technician_id: technician?.id,
      start_at: "2026-03-06T09:00:00.000Z",
      expires_at: "2026-03-05T12:00:45.000Z",
    });
  });

  it(`${CONCURRENT} simultaneous holds and bookings of one slot: one wins`, async () => {
    for (const withTechnician of [true, false]) {
      const { t, technician, type } = await setUp(withTechnician);
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, index) =>
          index % 2 === 0
            ? t.member.post(HOLDS, { appointment_type_id: type.id, start: SLOT })
            : t.member.post(BOOK, { appointment_type_id: type.id, start: SLOT, contact: { name: `Racer ${index}` } }),
        ),
      );
      const wins = responses.filter((response) => response.status === 201);
      expect(wins.length).toBe(1);
      expect(responses.filter((response) => response.status === 409).length).toBe(CONCURRENT - 1);
      const appointments = await activeAppointments(t.member);
      // Either the booking won (one appointment) or the hold did (none, and the slot is not offered).
      expect(appointments.length).toBe(wins[0]?.body.status === "scheduled" ? 1 : 0);
      expect(await offeredAt(t.member, type.id, "2026-03-06T09:00:00Z")).toBeUndefined();
      if (technician && appointments[0]) expect(appointments[0].technician_id).toBe(technician.id);
    }
  });

  it(`${CONCURRENT} simultaneous claims of a slot whose hold expired: one wins, and bookings of one hold book it once`, async () => {
    const { t, type } = await setUp();
    const expired = await hold(t.member, { appointment_type_id: type.id, start: SLOT });
    try {
      clock.set(expired.expires_at);
      const claims = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, index) =>
          index % 2 === 0
            ? t.member.post(HOLDS, { appointment_type_id: type.id, start: SLOT })
            : t.member.post(BOOK, { appointment_type_id: type.id, start: SLOT, contact: { name: `Racer ${index}` } }),
        ),
      );
      expect(claims.filter((response) => response.status === 201).length).toBe(1);
      expect(claims.filter((response) => response.status === 409).length).toBe(CONCURRENT - 1);

      const live = await hold(t.member, { appointment_type_id: type.id, start: "2026-03-06T11:00:00Z" });
      const bookings = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, index) =>
          t.member.post(BOOK, { appointment_type_id: type.id, hold_id: live.id, contact: { name: `Holder ${index}` } }),
        ),
      );
      expect(bookings.map((response) => response.status).sort()).toEqual([
        201,
        ...Array.from({ length: CONCURRENT - 1 }, () => 409),
      ]);
      const booked = (await activeAppointments(t.member)).filter(
        (appointment) => appointment.start_at === "2026-03-06T11:00:00.000Z",
      );
      expect(booked.length).toBe(1);
    } finally {
      clock.set(NOW);
    }
  });

  it("the database itself refuses an appointment overlapping a live hold, and a hold overlapping an appointment", async () => {
    const { t, technician, type } = await setUp();
    const held = await hold(t.member, { appointment_type_id: type.id, start: SLOT });
    const contact = expectStatus(await t.owner.post<{ id: string }>("/api/contacts", { name: "Direct" }), 201);
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => pgErrorCode(error),
      );
    const insertAppointment = (from: string, to: string) =>
      system.db.query(
        `INSERT INTO fieldops.appointments (id, org_id, appointment_type_id, contact_id, technician_id, start_at, end_at, blocked, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, tstzrange($6, $7), 'scheduled', now(), now())`,
        [newId(), t.orgId, type.id, contact.id, technician?.id, from, to],
      );
    const insertHold = (from: string, to: string) =>
      system.db.query(
        `INSERT INTO fieldops.slot_holds (id, org_id, appointment_type_id, technician_id, start_at, end_at, blocked, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, tstzrange($5, $6), '2100-01-01T00:00:00Z', now())`,
        [newId(), t.orgId, type.id, technician?.id, from, to],
      );
    expect(await refusal(insertAppointment("2026-03-06T09:30:00Z", "2026-03-06T10:30:00Z"))).toBe(
      PgErrorCode.exclusionViolation,
    );
    await insertAppointment("2026-03-06T12:00:00Z", "2026-03-06T13:00:00Z");
    expect(await refusal(insertHold("2026-03-06T12:30:00Z", "2026-03-06T13:30:00Z"))).toBe(
      PgErrorCode.exclusionViolation,
    );
    expect(await refusal(insertHold("2026-03-06T08:30:00Z", "2026-03-06T09:30:00Z"))).toBe(
      PgErrorCode.exclusionViolation,
    );
    // Back to back is no overlap; a released hold's time is free again.
    await insertHold("2026-03-06T10:00:00Z", "2026-03-06T11:00:00Z");
    expect((await t.member.delete(`${HOLDS}/${held.id}`)).status).toBe(204);
    await insertAppointment("2026-03-06T09:00:00Z", "2026-03-06T10:00:00Z");
  });
});
