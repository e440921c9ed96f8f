import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, newId, pgErrorCode, PgErrorCode } from "@voiceops/platform";
import { AdminClient, expectStatus, testEnv, detailOf } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { fieldopsErrors } from "../src/errors.js";
import { createTechnician } from "./helpers.js";
import { APPOINTMENTS, BOOK, createType, MANAGE, schedulingTenant, type Appointment } from "./scheduling-helpers.js";

// Double booking is impossible: many bookings of one slot fired at once get exactly one 201, on
// the embedded PGlite and, when DATABASE_URL is set, on PostgreSQL. The database refuses the
// overlap itself (the exclusion constraint), not only the service's check before it.

const CONCURRENT = 20;
const SLOT = "2026-03-06T09:00:00Z";

const storages: { name: string; env: Record<string, string | undefined> }[] = [
  {
    name: "PGlite",
    env: { ...testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" }), DATABASE_URL: undefined, NATS_URL: undefined },
  },
];
if (process.env.DATABASE_URL) storages.push({ name: "PostgreSQL", env: testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" }) });

describe.each(storages)("booking race on $name", ({ env }) => {
  const clock = new ManualClock("2026-03-05T12:00:00Z");
  let system: RunningSystem;
  let admin: AdminClient;

  beforeAll(async () => {
    system = await startSystem({ env, inMemory: true, clock });
    admin = new AdminClient(system.adminUrl, system.adminToken);
  });

  afterAll(async () => {
    await system?.stop();
  });

  async function race(withTechnician: boolean) {
    const t = await schedulingTenant(system.url, admin);
    const technician = withTechnician ? await createTechnician(t.owner, { name: "Only One" }) : undefined;
    const type = await createType(t.owner);
    const contact = expectStatus(await t.owner.post<{ id: string }>("/api/contacts", { name: "Racer" }), 201);
    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, index) =>
        t.member.post<Appointment>(BOOK, {
          appointment_type_id: type.id,
          start: SLOT,
          ...(index % 2 === 0
            ? { contact_id: contact.id }
            : { contact: { name: `Racer ${index}`, phone_number: `555-010-${String(5000 + index)}` } }),
          ...(technician && index % 3 === 0 ? { technician_id: technician.id } : {}),
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, ...Array.from({ length: CONCURRENT - 1 }, () => 409)]);
    for (const refused of responses.filter((response) => response.status === 409))
      expect(refused.body).toEqual(detailOf(fieldopsErrors.SLOT_TAKEN()));
    const listed = expectStatus(
      await t.member.get<{ items: Appointment[]; total: number }>(
        `${APPOINTMENTS}?date_from=2026-03-06&date_to=2026-03-06`,
      ),
      200,
    );
    expect(listed.total).toBe(1);
    expect(listed.items[0]).toMatchObject({
      start_at: "2026-03-06T09:00:00.000Z",
      technician_id: technician?.id ?? null,
      status: "scheduled",
    });
    return { t, type, technician, appointment: listed.items[0] as Appointment };
  }

  it(`${CONCURRENT} concurrent bookings of one technician's slot: exactly one 201`, async () => {
    const { t, type, technician, appointment } = await race(true);
    // Reschedules racing onto the same free slot: one wins, the old appointments of the others stay.
    const others = [];
    for (const start of ["2026-03-06T11:00:00Z", "2026-03-06T12:00:00Z", "2026-03-06T13:00:00Z"]) {
      others.push(
        expectStatus(
          await t.member.post<Appointment>(BOOK, {
            appointment_type_id: type.id,
            start,
            contact_id: appointment.contact_id,
          }),
          201,
        ),
      );
    }
    const moves = await Promise.all(
      [appointment, ...others].map((a) =>
        t.member.post<Appointment>(MANAGE, {
          appointment_id: a.id,
          action: "reschedule",
          start: "2026-03-06T15:00:00Z",
        }),
      ),
    );
    expect(moves.map((move) => move.status).sort()).toEqual([200, 409, 409, 409]);
    const listed = expectStatus(
      await t.member.get<{ items: Appointment[] }>(
        `${APPOINTMENTS}?date_from=2026-03-06&date_to=2026-03-06&status=scheduled`,
      ),
      200,
    );
    expect(listed.items.length).toBe(4);
    expect(listed.items.every((item) => item.technician_id === technician?.id)).toBe(true);
  });

  it(`${CONCURRENT} concurrent bookings when the business itself is the resource: exactly one 201`, async () => {
    await race(false);
  });

  it("the database itself refuses an overlapping active appointment of one technician", async () => {
    const { t, appointment } = await race(true);
    const insert = (id: string, status: string, from: string, to: string) =>
      system.db.query(
        `INSERT INTO fieldops.appointments (id, org_id, appointment_type_id, contact_id, technician_id, start_at, end_at, blocked, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, tstzrange($6, $7), $8, now(), now())`,
        [
          id,
          t.orgId,
          appointment.appointment_type_id,
          appointment.contact_id,
          appointment.technician_id,
          from,
          to,
          status,
        ],
      );
    const refused = await insert(newId(), "confirmed", "2026-03-06T09:30:00Z", "2026-03-06T10:30:00Z").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(pgErrorCode(refused)).toBe(PgErrorCode.exclusionViolation);
    // Back to back (half-open) and finished appointments do not conflict.
    await insert(newId(), "scheduled", "2026-03-06T10:00:00Z", "2026-03-06T11:00:00Z");
    await insert(newId(), "cancelled", "2026-03-06T09:00:00Z", "2026-03-06T10:00:00Z");
  });
});
