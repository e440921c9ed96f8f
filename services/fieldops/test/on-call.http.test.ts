import { describe, expect, it } from "vitest";
import {
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  tenantFactory,
  UNKNOWN_ID,
  UUID_PATTERN,
  type ApiClient,
} from "@voiceops/platform/testing";
import {
  createSchedule,
  createTechnician,
  CURRENT,
  hoursFromNow,
  SCHEDULES,
  type Items,
  type Schedule,
} from "./helpers.js";

// HTTP tests of the on-call schedule routes: create, update, cancel, list by range.

const tenant = tenantFactory();

const SCHEDULE_KEYS = [
  "created_at",
  "end_at",
  "id",
  "notes",
  "start_at",
  "status",
  "technician",
  "technician_id",
  "updated_at",
];

async function listSchedules(client: ApiClient, query = ""): Promise<Items<Schedule>> {
  return expectStatus(await client.get<Items<Schedule>>(`${SCHEDULES}${query}`), 200);
}

const q = (instant: string) => encodeURIComponent(instant);

describe("POST /api/technicians/on-call/schedule", () => {
  it("creates a scheduled schedule and answers 200 with the technician's summary", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Nina Night", phone_number: "555-010-7000" });
    const res = await t.member.post(SCHEDULES, {
      technician_id: technician.id.toUpperCase(),
      start_at: "2031-01-10T22:00:00-06:00",
      end_at: "2031-01-11T06:00:00-06:00",
      notes: " Weekend ",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(SCHEDULE_KEYS);
    expect(res.body).toMatchObject({
      technician_id: technician.id,
      technician: { id: technician.id, name: "Nina Night", phone_number: "+15550107000" },
      start_at: "2031-01-11T04:00:00.000Z",
      end_at: "2031-01-11T12:00:00.000Z",
      status: "scheduled",
      notes: "Weekend",
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect((await listSchedules(t.owner)).items).toEqual([res.body]);
  });

  it("refuses an overlapping schedule of the same technician with 409 naming the other; back-to-back and other technicians are fine", async () => {
    const t = await tenant();
    const a = await createTechnician(t.owner, { name: "A" });
    const b = await createTechnician(t.owner, { name: "B" });
    const first = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-02-01T08:00:00Z",
      end_at: "2031-02-01T16:00:00Z",
    });
    for (const [start, end] of [
      ["2031-02-01T15:59:00Z", "2031-02-01T20:00:00Z"],
      ["2031-02-01T06:00:00Z", "2031-02-01T08:01:00Z"],
      ["2031-02-01T09:00:00Z", "2031-02-01T10:00:00Z"],
      ["2031-02-01T00:00:00Z", "2031-02-02T00:00:00Z"],
    ]) {
      expect(
        expectDetail(await t.owner.post(SCHEDULES, { technician_id: a.id, start_at: start, end_at: end }), 409),
      ).toContain(first.id);
    }
    await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-02-01T16:00:00Z",
      end_at: "2031-02-01T20:00:00Z",
    });
    await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-02-01T04:00:00Z",
      end_at: "2031-02-01T08:00:00Z",
    });
    await createSchedule(t.owner, {
      technician_id: b.id,
      start_at: "2031-02-01T08:00:00Z",
      end_at: "2031-02-01T16:00:00Z",
    });
    // A cancelled schedule no longer blocks its time.
    expect((await t.owner.delete(`${SCHEDULES}/${first.id}`)).status).toBe(204);
    await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-02-01T09:00:00Z",
      end_at: "2031-02-01T10:00:00Z",
    });
    expect((await listSchedules(t.owner, `?start_date=${q("2031-02-01T00:00:00Z")}`)).total).toBe(4);
  });

  it("answers 422 naming each bad field, and stores nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(t.owner, { name: "T" });
    const foreign = await createTechnician(other.owner, { name: "Foreign" });
    expect422(await t.owner.post(SCHEDULES, {}), [
      { loc: ["body", "technician_id"], type: "missing" },
      { loc: ["body", "start_at"], type: "missing" },
      { loc: ["body", "end_at"], type: "missing" },
    ]);
    expect422(
      await t.owner.post(SCHEDULES, {
        technician_id: "nope",
        start_at: "tomorrow",
        end_at: 5,
        notes: "n".repeat(2001),
      }),
      [
        { loc: ["body", "technician_id"], type: "uuid_parsing" },
        { loc: ["body", "start_at"], type: "datetime_parsing" },
        { loc: ["body", "end_at"], type: "datetime_parsing" },
        { loc: ["body", "notes"], type: "string_too_long" },
      ],
    );
    // end_at must be after start_at; a technician of another organization is not found.
    expect422(
      await t.owner.post(SCHEDULES, {
        technician_id: technician.id,
        start_at: "2031-03-01T10:00:00Z",
        end_at: "2031-03-01T10:00:00Z",
      }),
      [{ loc: ["body", "end_at"], type: "value_error" }],
    );
    expect422(
      await t.owner.post(SCHEDULES, {
        technician_id: foreign.id,
        start_at: "2031-03-01T10:00:00Z",
        end_at: "2031-03-01T09:00:00Z",
      }),
      [
        { loc: ["body", "technician_id"], type: "value_error" },
        { loc: ["body", "end_at"], type: "value_error" },
      ],
    );
    expect422(
      await t.owner.post(SCHEDULES, {
        technician_id: UNKNOWN_ID,
        start_at: "2031-03-01T10:00:00Z",
        end_at: "2031-03-01T11:00:00Z",
      }),
      [{ loc: ["body", "technician_id"], type: "value_error" }],
    );
    expect((await listSchedules(t.owner, `?start_date=${q("2000-01-01T00:00:00Z")}`)).total).toBe(0);
    expect((await listSchedules(other.owner, `?start_date=${q("2000-01-01T00:00:00Z")}`)).total).toBe(0);
  });
});

describe("GET /api/technicians/on-call/schedule", () => {
  it("lists scheduled schedules overlapping the range by start; from now by default, without an end by default", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(t.owner, { name: "Ranger" });
    const second = await createTechnician(t.owner, { name: "Second" });
    const foreignTech = await createTechnician(other.owner, { name: "Foreign" });
    await createSchedule(other.owner, {
      technician_id: foreignTech.id,
      start_at: hoursFromNow(1),
      end_at: hoursFromNow(2),
    });
    const past = await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: hoursFromNow(-10),
      end_at: hoursFromNow(-8),
    });
    const current = await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: hoursFromNow(-1),
      end_at: hoursFromNow(1),
    });
    const soon = await createSchedule(t.owner, {
      technician_id: second.id,
      start_at: hoursFromNow(2),
      end_at: hoursFromNow(4),
    });
    const far = await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: hoursFromNow(100),
      end_at: hoursFromNow(110),
    });
    const cancelled = await createSchedule(t.owner, {
      technician_id: technician.id,
      start_at: hoursFromNow(5),
      end_at: hoursFromNow(6),
    });
    expect((await t.owner.delete(`${SCHEDULES}/${cancelled.id}`)).status).toBe(204);

    const list = await listSchedules(t.owner);
    expect(Object.keys(list).sort()).toEqual(["items", "total"]);
    expect(idsOf(list.items)).toEqual([current.id, soon.id, far.id]);
    expect(list.total).toBe(3);
    expect(idsOf((await listSchedules(t.owner, `?end_date=${q(hoursFromNow(3))}`)).items)).toEqual([
      current.id,
      soon.id,
    ]);
    expect(
      idsOf(
        (await listSchedules(t.owner, `?start_date=${q(hoursFromNow(-9))}&end_date=${q(hoursFromNow(-0.5))}`)).items,
      ),
    ).toEqual([past.id, current.id]);
    // Half-open: a schedule ending at the range's start, or starting at its end, is outside.
    expect(
      idsOf((await listSchedules(t.owner, `?start_date=${q(past.end_at)}&end_date=${q(soon.start_at)}`)).items),
    ).toEqual([current.id]);
    expect(idsOf((await listSchedules(t.owner, `?technician_id=${second.id}`)).items)).toEqual([soon.id]);
    // start_date = end_date asks for the schedules covering that instant.
    const instant = q(hoursFromNow(-0.5));
    expect(idsOf((await listSchedules(t.owner, `?start_date=${instant}&end_date=${instant}`)).items)).toEqual([
      current.id,
    ]);
    expect(
      idsOf((await listSchedules(t.owner, `?start_date=${q(soon.start_at)}&end_date=${q(soon.start_at)}`)).items),
    ).toEqual([soon.id]);
  });

  it("answers 422 for bad dates and for an end before the start", async () => {
    const t = await tenant();
    expect422(await t.owner.get(`${SCHEDULES}?start_date=yesterday&end_date=2031-13-01T00:00:00Z&technician_id=x`), [
      { loc: ["query", "start_date"], type: "datetime_parsing" },
      { loc: ["query", "end_date"], type: "datetime_parsing" },
      { loc: ["query", "technician_id"], type: "uuid_parsing" },
    ]);
    expect422(
      await t.owner.get(`${SCHEDULES}?start_date=${q("2031-01-02T00:00:00Z")}&end_date=${q("2031-01-01T00:00:00Z")}`),
      [{ loc: ["query", "end_date"], type: "value_error" }],
    );
  });
});

describe("PUT /api/technicians/on-call/schedule/{schedule_id}", () => {
  it("changes the given fields, keeps the others, and answers 200", async () => {
    const t = await tenant();
    const a = await createTechnician(t.owner, { name: "A" });
    const b = await createTechnician(t.owner, { name: "B" });
    const before = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-04-01T08:00:00Z",
      end_at: "2031-04-01T16:00:00Z",
      notes: "first",
    });
    const res = await t.owner.put(`${SCHEDULES}/${before.id}`, { end_at: "2031-04-01T18:00:00Z", notes: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      end_at: "2031-04-01T18:00:00.000Z",
      notes: null,
      updated_at: res.body.updated_at,
    });
    const moved = expectStatus(await t.owner.put<Schedule>(`${SCHEDULES}/${before.id}`, { technician_id: b.id }), 200);
    expect(moved).toMatchObject({ technician_id: b.id, technician: { id: b.id, name: "B", phone_number: null } });
    expect(expectStatus(await t.owner.put(`${SCHEDULES}/${before.id}`, {}), 200)).toEqual(moved);
    expect((await listSchedules(t.owner, `?start_date=${q("2031-04-01T00:00:00Z")}`)).items).toEqual([moved]);
  });

  it("refuses an overlap with another schedule (409) but not with itself", async () => {
    const t = await tenant();
    const a = await createTechnician(t.owner, { name: "A" });
    const b = await createTechnician(t.owner, { name: "B" });
    const morning = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-05-01T08:00:00Z",
      end_at: "2031-05-01T12:00:00Z",
    });
    const afternoon = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-05-01T12:00:00Z",
      end_at: "2031-05-01T16:00:00Z",
    });
    const other = await createSchedule(t.owner, {
      technician_id: b.id,
      start_at: "2031-05-01T08:00:00Z",
      end_at: "2031-05-01T12:00:00Z",
    });
    expect(
      expectDetail(await t.owner.put(`${SCHEDULES}/${morning.id}`, { end_at: "2031-05-01T13:00:00Z" }), 409),
    ).toContain(afternoon.id);
    expect(expectDetail(await t.owner.put(`${SCHEDULES}/${other.id}`, { technician_id: a.id }), 409)).toContain(
      morning.id,
    );
    expectStatus(
      await t.owner.put(`${SCHEDULES}/${morning.id}`, {
        start_at: "2031-05-01T07:00:00Z",
        end_at: "2031-05-01T11:00:00Z",
      }),
      200,
    );
    expect(
      expectStatus(
        await t.owner.get<Items<Schedule>>(
          `${SCHEDULES}?technician_id=${b.id}&start_date=${q("2031-05-01T00:00:00Z")}`,
        ),
        200,
      ).items,
    ).toEqual([other]);
  });

  it("answers 422 naming the field and changes nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const a = await createTechnician(t.owner, { name: "A" });
    const foreign = await createTechnician(other.owner, { name: "Foreign" });
    const before = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-06-01T08:00:00Z",
      end_at: "2031-06-01T16:00:00Z",
    });
    expect422(await t.owner.put(`${SCHEDULES}/${before.id}`, { end_at: "2031-06-01T07:00:00Z" }), [
      { loc: ["body", "end_at"], type: "value_error" },
    ]);
    expect422(await t.owner.put(`${SCHEDULES}/${before.id}`, { start_at: "2031-06-01T17:00:00Z" }), [
      { loc: ["body", "start_at"], type: "value_error" },
    ]);
    expect422(await t.owner.put(`${SCHEDULES}/${before.id}`, { technician_id: foreign.id, notes: "x" }), [
      { loc: ["body", "technician_id"], type: "value_error" },
    ]);
    expect422(
      await t.owner.put(`${SCHEDULES}/${before.id}`, { technician_id: null, start_at: null, end_at: "soon", notes: 3 }),
      [
        { loc: ["body", "technician_id"], type: "string_type" },
        { loc: ["body", "start_at"], type: "datetime_type" },
        { loc: ["body", "end_at"], type: "datetime_parsing" },
        { loc: ["body", "notes"], type: "string_type" },
      ],
    );
    expect422(await t.owner.put(`${SCHEDULES}/not-an-id`, {}), [
      { loc: ["path", "schedule_id"], type: "uuid_parsing" },
    ]);
    expect((await listSchedules(t.owner, `?start_date=${q("2031-06-01T00:00:00Z")}`)).items).toEqual([before]);
  });

  it("answers 409 for a cancelled schedule and 404 for an unknown one or another organization's", async () => {
    const t = await tenant();
    const other = await tenant();
    const a = await createTechnician(t.owner, { name: "A" });
    const foreignTech = await createTechnician(other.owner, { name: "Foreign" });
    const foreign = await createSchedule(other.owner, {
      technician_id: foreignTech.id,
      start_at: "2031-07-01T08:00:00Z",
      end_at: "2031-07-01T16:00:00Z",
    });
    const cancelled = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: "2031-07-01T08:00:00Z",
      end_at: "2031-07-01T16:00:00Z",
    });
    expect((await t.owner.delete(`${SCHEDULES}/${cancelled.id}`)).status).toBe(204);
    expectDetail(await t.owner.put(`${SCHEDULES}/${cancelled.id}`, { notes: "again" }), 409);
    expectDetail(await t.owner.put(`${SCHEDULES}/${UNKNOWN_ID}`, { notes: "x" }), 404);
    expectDetail(await t.owner.put(`${SCHEDULES}/${foreign.id}`, { notes: "x" }), 404);
    expect((await listSchedules(other.owner, `?start_date=${q("2031-07-01T00:00:00Z")}`)).items).toEqual([foreign]);
  });
});

describe("DELETE /api/technicians/on-call/schedule/{schedule_id}", () => {
  it("cancels with 204, again 204; 404 for an unknown or foreign schedule; 422 for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const a = await createTechnician(t.owner, { name: "A" });
    const foreignTech = await createTechnician(other.owner, { name: "Foreign" });
    const foreign = await createSchedule(other.owner, {
      technician_id: foreignTech.id,
      start_at: hoursFromNow(-1),
      end_at: hoursFromNow(1),
    });
    const schedule = await createSchedule(t.owner, {
      technician_id: a.id,
      start_at: hoursFromNow(-1),
      end_at: hoursFromNow(1),
    });
    expect(expectStatus(await t.owner.get(CURRENT), 200).total).toBe(1);
    const res = await t.member.delete(`${SCHEDULES}/${schedule.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await t.owner.delete(`${SCHEDULES}/${schedule.id.toUpperCase()}`)).status).toBe(204);
    expect((await listSchedules(t.owner)).total).toBe(0);
    expect(expectStatus(await t.owner.get(CURRENT), 200).total).toBe(0);
    expectDetail(await t.owner.delete(`${SCHEDULES}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`${SCHEDULES}/${foreign.id}`), 404);
    expect((await listSchedules(other.owner)).items).toEqual([foreign]);
    expect422(await t.owner.delete(`${SCHEDULES}/123`), [{ loc: ["path", "schedule_id"], type: "uuid_parsing" }]);
  });
});
