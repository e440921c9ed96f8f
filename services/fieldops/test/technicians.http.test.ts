import { describe, expect, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  namesOf,
  tenantFactory,
  UNKNOWN_ID,
  unknownKeyClient,
  UUID_PATTERN,
} from "@voiceops/platform/testing";
import {
  ALERTS,
  createDispatch,
  createRequest,
  createSchedule,
  createTechnician,
  CURRENT,
  DISPATCHES,
  getTechnician,
  hoursFromNow,
  listTechnicians,
  SCHEDULES,
  TECHNICIAN_KEYS,
  TECHNICIANS,
  type Items,
  type Schedule,
} from "./helpers.js";

// HTTP tests of the technician routes, through the gateway. Technicians are the service
// providers: the same records and ids, with who is on call and available now.

const tenant = tenantFactory();

describe("authentication", () => {
  it.each([
    ["GET", TECHNICIANS],
    ["POST", TECHNICIANS],
    ["GET", `${TECHNICIANS}/${UNKNOWN_ID}`],
    ["PUT", `${TECHNICIANS}/${UNKNOWN_ID}`],
    ["DELETE", `${TECHNICIANS}/${UNKNOWN_ID}`],
    ["GET", SCHEDULES],
    ["POST", SCHEDULES],
    ["PUT", `${SCHEDULES}/${UNKNOWN_ID}`],
    ["DELETE", `${SCHEDULES}/${UNKNOWN_ID}`],
    ["GET", CURRENT],
    ["POST", DISPATCHES],
    ["GET", DISPATCHES],
    ["GET", `${DISPATCHES}/active`],
    ["GET", `${DISPATCHES}/${UNKNOWN_ID}`],
    ["PUT", `${DISPATCHES}/${UNKNOWN_ID}`],
    ["DELETE", `${DISPATCHES}/${UNKNOWN_ID}`],
    ["GET", ALERTS],
    ["POST", ALERTS],
    ["GET", `${ALERTS}/${UNKNOWN_ID}`],
    ["PUT", `${ALERTS}/${UNKNOWN_ID}`],
    ["DELETE", `${ALERTS}/${UNKNOWN_ID}`],
  ])("%s %s without a key, or with an unknown key, is 401", async (method, path) => {
    await expect401(anonymousClient(), method, path, { name: "x" });
    await expect401(unknownKeyClient(), method, path, { name: "x" });
  });
});

describe("route matching", () => {
  it("serves the literal paths, not the technician or dispatch by id", async () => {
    const t = await tenant();
    for (const path of [DISPATCHES, `${DISPATCHES}/active`, SCHEDULES, CURRENT]) {
      expect(expectStatus(await t.owner.get(path), 200), path).toEqual({ items: [], total: 0 });
    }
    // A technician id must still be a uuid, and an unknown one is a 404.
    expect422(await t.owner.get(`${TECHNICIANS}/on-call`), [{ loc: ["path", "technician_id"], type: "uuid_parsing" }]);
    expect422(await t.owner.get(`${DISPATCHES}/inactive`), [{ loc: ["path", "dispatch_id"], type: "uuid_parsing" }]);
    expectDetail(await t.owner.get(`${DISPATCHES}/${UNKNOWN_ID}`), 404);
  });
});

describe("POST /api/technicians", () => {
  it("creates a technician and answers 200 with the full record, which is also a service provider", async () => {
    const t = await tenant();
    const res = await t.owner.post(TECHNICIANS, {
      name: "Dana Pipes",
      phone_number: "(555) 010-4000",
      email: "dana@example.com",
      specialty: "Plumbing",
      skills: [" water ", "gas", "water"],
      status: "active",
      is_on_call: true,
      notes: "Van 3",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(TECHNICIAN_KEYS);
    expect(res.body).toMatchObject({
      name: "Dana Pipes",
      phone_number: "+15550104000",
      email: "dana@example.com",
      specialty: "Plumbing",
      skills: ["water", "gas"],
      status: "active",
      is_on_call: true,
      on_call_now: true,
      available_now: true,
      notes: "Van 3",
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect(await getTechnician(t.owner, res.body.id)).toEqual(res.body);
    const provider = expectStatus(await t.owner.get(`/api/service-providers/${res.body.id}`), 200);
    const { on_call_now: _a, available_now: _b, ...providerFields } = res.body;
    expect(provider).toEqual(providerFields);
  });

  it("defaults status to active and is_on_call to false: not on call, not available", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.member, { name: "Only Name" });
    expect(technician).toMatchObject({
      status: "active",
      is_on_call: false,
      on_call_now: false,
      available_now: false,
      skills: [],
      phone_number: null,
      notes: null,
    });
  });

  it("requires a name and reports every bad field at once, storing nothing", async () => {
    const t = await tenant();
    expect422(await t.owner.post(TECHNICIANS, { specialty: "HVAC" }), [{ loc: ["body", "name"], type: "missing" }]);
    expect422(await t.owner.post(TECHNICIANS, { name: "  " }), [{ loc: ["body", "name"], type: "string_too_short" }]);
    expect422(
      await t.owner.post(TECHNICIANS, {
        name: "n".repeat(201),
        status: "retired",
        is_on_call: "maybe",
        skills: "hvac",
        phone_number: "call me",
        email: "nope",
      }),
      [
        { loc: ["body", "name"], type: "string_too_long" },
        { loc: ["body", "phone_number"], type: "value_error" },
        { loc: ["body", "email"], type: "value_error" },
        { loc: ["body", "skills"], type: "list_type" },
        { loc: ["body", "status"], type: "enum" },
        { loc: ["body", "is_on_call"], type: "bool_parsing" },
      ],
    );
    expect422(await t.owner.post(TECHNICIANS, { name: "x", skills: [1, "ok"] }), [
      { loc: ["body", "skills", 0], type: "string_type" },
    ]);
    expect422(await t.owner.request("POST", TECHNICIANS, { rawBody: '{"name": ' }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect422(await t.owner.request("POST", TECHNICIANS, { rawBody: "[]" }), [{ loc: ["body"] }]);
    expect(await listTechnicians(t.owner)).toEqual({ items: [], total: 0 });
  });
});

describe("GET /api/technicians", () => {
  it("lists every technician and service provider of the organization by name, {items, total} without pages", async () => {
    const t = await tenant();
    const other = await tenant();
    await createTechnician(other.owner, { name: "Foreign" });
    const b = await createTechnician(t.owner, { name: "bea" });
    const a = await createTechnician(t.owner, { name: "Abe" });
    const provider = expectStatus(await t.owner.post("/api/service-providers", { name: "Cy Contractor" }), 201);
    const list = await listTechnicians(t.owner);
    expect(Object.keys(list).sort()).toEqual(["items", "total"]);
    expect(idsOf(list.items)).toEqual([a.id, b.id, provider.id]);
    expect(list.total).toBe(3);
    expect(list.items[0]).toEqual(a);
    expect(list.items[2]).toMatchObject({ name: "Cy Contractor", on_call_now: false, available_now: false });
  });

  it("skill matches one whole skill, ignoring case", async () => {
    const t = await tenant();
    const pipes = await createTechnician(t.owner, { name: "Pipes", skills: ["Pipes", "Gas"] });
    const gas = await createTechnician(t.owner, { name: "Gasman", skills: ["gas"] });
    await createTechnician(t.owner, { name: "None" });
    expect(idsOf((await listTechnicians(t.owner, "?skill=GAS")).items)).toEqual([gas.id, pipes.id]);
    expect(idsOf((await listTechnicians(t.owner, "?skill=pipes")).items)).toEqual([pipes.id]);
    expect((await listTechnicians(t.owner, "?skill=pipe")).total).toBe(0);
    expect((await listTechnicians(t.owner, "?skill=%25")).total).toBe(0);
  });

  it("computes on_call_now from the flag or a schedule covering now, and filters is_on_call on it", async () => {
    const t = await tenant();
    const flagged = await createTechnician(t.owner, { name: "A Flagged", is_on_call: true });
    const scheduled = await createTechnician(t.owner, { name: "B Scheduled" });
    const later = await createTechnician(t.owner, { name: "C Later" });
    const ended = await createTechnician(t.owner, { name: "D Ended" });
    const cancelled = await createTechnician(t.owner, { name: "E Cancelled" });
    await createSchedule(t.owner, { technician_id: scheduled.id, start_at: hoursFromNow(-1), end_at: hoursFromNow(2) });
    await createSchedule(t.owner, { technician_id: later.id, start_at: hoursFromNow(1), end_at: hoursFromNow(3) });
    await createSchedule(t.owner, { technician_id: ended.id, start_at: hoursFromNow(-3), end_at: hoursFromNow(-1) });
    const gone = await createSchedule(t.owner, {
      technician_id: cancelled.id,
      start_at: hoursFromNow(-1),
      end_at: hoursFromNow(2),
    });
    expect((await t.owner.delete(`${SCHEDULES}/${gone.id}`)).status).toBe(204);

    const all = await listTechnicians(t.owner);
    expect(all.items.map((x) => [x.name, x.is_on_call, x.on_call_now, x.available_now])).toEqual([
      ["A Flagged", true, true, true],
      ["B Scheduled", false, true, true],
      ["C Later", false, false, false],
      ["D Ended", false, false, false],
      ["E Cancelled", false, false, false],
    ]);
    expect(idsOf((await listTechnicians(t.owner, "?is_on_call=true")).items)).toEqual([flagged.id, scheduled.id]);
    expect(idsOf((await listTechnicians(t.owner, "?is_on_call=false")).items)).toEqual([
      later.id,
      ended.id,
      cancelled.id,
    ]);
    expect((await getTechnician(t.owner, scheduled.id)).on_call_now).toBe(true);
  });

  it("available_now means active, on call now and not on an active dispatch", async () => {
    const t = await tenant();
    const free = await createTechnician(t.owner, { name: "A Free", is_on_call: true, skills: ["water"] });
    const busy = await createTechnician(t.owner, { name: "B Busy", is_on_call: true });
    const suspended = await createTechnician(t.owner, { name: "C Suspended", is_on_call: true, status: "suspended" });
    const offDuty = await createTechnician(t.owner, { name: "D Off duty" });
    const request = await createRequest(t.owner);
    const dispatch = await createDispatch(t.owner, { service_request_id: request.id, technician_id: busy.id });

    expect(idsOf((await listTechnicians(t.owner, "?available_now=true")).items)).toEqual([free.id]);
    expect(idsOf((await listTechnicians(t.owner, "?available_now=false")).items)).toEqual([
      busy.id,
      suspended.id,
      offDuty.id,
    ]);
    expect(idsOf((await listTechnicians(t.owner, "?available_now=true&skill=water&is_on_call=true")).items)).toEqual([
      free.id,
    ]);
    expect((await listTechnicians(t.owner, "?available_now=true&skill=gas")).total).toBe(0);
    expect(await getTechnician(t.owner, busy.id)).toMatchObject({ on_call_now: true, available_now: false });

    // Finishing the dispatch frees the technician again.
    expectStatus(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: "completed" }), 200);
    expect(idsOf((await listTechnicians(t.owner, "?available_now=true")).items)).toEqual([free.id, busy.id]);
  });

  it("answers 422 naming each bad filter", async () => {
    const t = await tenant();
    expect422(await t.owner.get(`${TECHNICIANS}?is_on_call=maybe&available_now=2&skill=${"s".repeat(101)}`), [
      { loc: ["query", "is_on_call"], type: "bool_parsing" },
      { loc: ["query", "skill"], type: "string_too_long" },
      { loc: ["query", "available_now"], type: "bool_parsing" },
    ]);
  });
});

describe("GET /api/technicians/{technician_id}", () => {
  it("reads a technician by id, upper case too, with any role", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Reader" });
    expect(await getTechnician(t.member, technician.id.toUpperCase())).toEqual(technician);
  });

  it("answers 404 for an unknown id and for another organization's technician, 422 for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createTechnician(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.get(`${TECHNICIANS}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.get(`${TECHNICIANS}/${foreign.id}`), 404);
    expect422(await t.owner.get(`${TECHNICIANS}/12345`), [{ loc: ["path", "technician_id"], type: "uuid_parsing" }]);
  });
});

describe("PUT /api/technicians/{technician_id}", () => {
  it("changes only the given fields, clears nulls, and on_call_now follows the flag", async () => {
    const t = await tenant();
    const before = await createTechnician(t.owner, {
      name: "Editable",
      specialty: "HVAC",
      notes: "n",
      skills: ["hvac"],
    });
    const res = await t.owner.put(`${TECHNICIANS}/${before.id}`, {
      is_on_call: true,
      specialty: null,
      skills: ["HVAC", " gas "],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      is_on_call: true,
      on_call_now: true,
      available_now: true,
      specialty: null,
      skills: ["HVAC", "gas"],
      updated_at: res.body.updated_at,
    });
    expect(await getTechnician(t.owner, before.id)).toEqual(res.body);
    expect(expectStatus(await t.owner.put(`${TECHNICIANS}/${before.id}`, {}), 200)).toEqual(res.body);
    const suspended = expectStatus(await t.owner.put(`${TECHNICIANS}/${before.id}`, { status: "suspended" }), 200);
    expect(suspended).toMatchObject({ status: "suspended", on_call_now: true, available_now: false });
  });

  it("answers 422 naming each bad field and changes nothing", async () => {
    const t = await tenant();
    const before = await createTechnician(t.owner, { name: "Stable" });
    expect422(
      await t.owner.put(`${TECHNICIANS}/${before.id}`, {
        name: null,
        status: "gone",
        is_on_call: null,
        phone_number: "abc",
        notes: "kept?",
      }),
      [
        { loc: ["body", "name"] },
        { loc: ["body", "phone_number"], type: "value_error" },
        { loc: ["body", "status"], type: "enum" },
        { loc: ["body", "is_on_call"] },
      ],
    );
    expect422(await t.owner.put(`${TECHNICIANS}/${before.id}`, { phone_number: "call me" }), [
      { loc: ["body", "phone_number"], type: "value_error" },
    ]);
    expect422(await t.owner.request("PUT", `${TECHNICIANS}/${before.id}`), [{ loc: ["body"] }]);
    expect422(await t.owner.put(`${TECHNICIANS}/nope`, { name: "x" }), [
      { loc: ["path", "technician_id"], type: "uuid_parsing" },
    ]);
    expect(await getTechnician(t.owner, before.id)).toEqual(before);
  });

  it("answers 404 for an unknown id and another organization's technician, which stays unchanged", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createTechnician(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.put(`${TECHNICIANS}/${UNKNOWN_ID}`, { name: "Ghost" }), 404);
    expectDetail(await t.owner.put(`${TECHNICIANS}/${foreign.id}`, { name: "Hijack" }), 404);
    expectDetail(await t.owner.put(`${TECHNICIANS}/${foreign.id}`, {}), 404);
    expect(await getTechnician(other.owner, foreign.id)).toEqual(foreign);
  });
});

describe("DELETE /api/technicians/{technician_id}", () => {
  it("answers 200 {id, deleted: true}; the technician is gone under both paths", async () => {
    const t = await tenant();
    const doomed = await createTechnician(t.owner, { name: "Doomed" });
    const res = await t.member.delete(`${TECHNICIANS}/${doomed.id.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: doomed.id, deleted: true });
    expectDetail(await t.owner.get(`${TECHNICIANS}/${doomed.id}`), 404);
    expectDetail(await t.owner.get(`/api/service-providers/${doomed.id}`), 404);
    expectDetail(await t.owner.delete(`${TECHNICIANS}/${doomed.id}`), 404);
    expect((await listTechnicians(t.owner)).total).toBe(0);
  });

  it("cancels the technician's schedules that have not ended; an ended one stays, without its technician", async () => {
    const t = await tenant();
    const doomed = await createTechnician(t.owner, { name: "Doomed" });
    const keeper = await createTechnician(t.owner, { name: "Keeper" });
    const past = await createSchedule(t.owner, {
      technician_id: doomed.id,
      start_at: hoursFromNow(-5),
      end_at: hoursFromNow(-4),
    });
    await createSchedule(t.owner, { technician_id: doomed.id, start_at: hoursFromNow(-1), end_at: hoursFromNow(1) });
    await createSchedule(t.owner, { technician_id: doomed.id, start_at: hoursFromNow(10), end_at: hoursFromNow(12) });
    const kept = await createSchedule(t.owner, {
      technician_id: keeper.id,
      start_at: hoursFromNow(10),
      end_at: hoursFromNow(12),
    });
    expect((await t.owner.delete(`${TECHNICIANS}/${doomed.id}`)).status).toBe(200);
    const from = encodeURIComponent(hoursFromNow(-6));
    const list = expectStatus(await t.owner.get<Items<Schedule>>(`${SCHEDULES}?start_date=${from}`), 200);
    expect(list.items.map((s) => [s.id, s.technician?.name ?? null])).toEqual([
      [past.id, null],
      [kept.id, "Keeper"],
    ]);
    expect(list.items[0]).toMatchObject({ technician_id: doomed.id, status: "scheduled" });
  });

  it("refuses (409) while the technician is on an active dispatch, under both paths, and deletes once it is over", async () => {
    const t = await tenant();
    const busy = await createTechnician(t.owner, { name: "Busy", is_on_call: true });
    const request = await createRequest(t.owner);
    const dispatch = await createDispatch(t.owner, { service_request_id: request.id, technician_id: busy.id });
    expectDetail(await t.owner.delete(`${TECHNICIANS}/${busy.id}`), 409);
    expectDetail(await t.owner.delete(`/api/service-providers/${busy.id}`), 409);
    expect(await getTechnician(t.owner, busy.id)).toMatchObject({ name: "Busy" });
    expect((await t.owner.delete(`${DISPATCHES}/${dispatch.id}`)).status).toBe(204);
    expect(expectStatus(await t.owner.delete(`${TECHNICIANS}/${busy.id}`), 200)).toEqual({
      id: busy.id,
      deleted: true,
    });
    // The dispatch keeps its technician's id, without the technician's details.
    expect(expectStatus(await t.owner.get(`${DISPATCHES}/${dispatch.id}`), 200)).toMatchObject({
      technician_id: busy.id,
      technician: null,
      status: "cancelled",
    });
  });

  it("answers 404 for an unknown id and another organization's technician, which stays; 422 for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createTechnician(other.owner, { name: "Foreign" });
    expectDetail(await t.owner.delete(`${TECHNICIANS}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`${TECHNICIANS}/${foreign.id}`), 404);
    expect(await getTechnician(other.owner, foreign.id)).toEqual(foreign);
    expect422(await t.owner.delete(`${TECHNICIANS}/nope`), [{ loc: ["path", "technician_id"], type: "uuid_parsing" }]);
  });
});

describe("GET /api/technicians/on-call/current", () => {
  it("lists technicians on call now by name, with the source and, for a schedule, its end", async () => {
    const t = await tenant();
    const other = await tenant();
    await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    const flagged = await createTechnician(t.owner, { name: "A Flagged", is_on_call: true, status: "inactive" });
    const scheduled = await createTechnician(t.owner, { name: "B Scheduled" });
    const both = await createTechnician(t.owner, { name: "C Both", is_on_call: true });
    await createTechnician(t.owner, { name: "D Nobody" });
    const until = hoursFromNow(2);
    await createSchedule(t.owner, { technician_id: scheduled.id, start_at: hoursFromNow(-1), end_at: until });
    await createSchedule(t.owner, { technician_id: both.id, start_at: hoursFromNow(-1), end_at: hoursFromNow(1) });

    const res = await t.owner.get(CURRENT);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["items", "total"]);
    expect(res.body.total).toBe(3);
    expect(
      res.body.items.map((x: { name: string; on_call_source: string; on_call_until: string | null }) => [
        x.name,
        x.on_call_source,
        x.on_call_until,
      ]),
    ).toEqual([
      ["A Flagged", "flag", null],
      ["B Scheduled", "schedule", until],
      ["C Both", "flag", null],
    ]);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(
      [...TECHNICIAN_KEYS, "on_call_source", "on_call_until"].sort(),
    );
    expect(res.body.items[0]).toMatchObject({
      id: flagged.id,
      status: "inactive",
      on_call_now: true,
      available_now: false,
    });
    expect(namesOf(res.body.items)).toEqual(namesOf((await listTechnicians(t.owner, "?is_on_call=true")).items));
  });
});

describe("NUL characters", () => {
  it("are refused with 422 naming the field, in bodies and queries of every resource, and nothing is written", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Clean", is_on_call: true });
    const request = await createRequest(t.owner);
    const nul = "a\u0000b";
    expect422(await t.owner.post(TECHNICIANS, { name: nul, skills: ["ok", nul] }), [
      { loc: ["body", "name"], type: "value_error" },
      { loc: ["body", "skills", 1], type: "value_error" },
    ]);
    expect422(await t.owner.put(`${TECHNICIANS}/${technician.id}`, { notes: nul }), [
      { loc: ["body", "notes"], type: "value_error" },
    ]);
    expect422(await t.owner.get(`${TECHNICIANS}?skill=a%00b`), [{ loc: ["query", "skill"], type: "value_error" }]);
    expect422(
      await t.owner.post(SCHEDULES, {
        technician_id: technician.id,
        start_at: hoursFromNow(1),
        end_at: hoursFromNow(2),
        notes: nul,
      }),
      [{ loc: ["body", "notes"], type: "value_error" }],
    );
    expect422(await t.owner.post(DISPATCHES, { service_request_id: request.id, notes: nul }), [
      { loc: ["body", "notes"], type: "value_error" },
    ]);
    expect422(await t.owner.post(ALERTS, { location: nul, alert_type: "gas" }), [
      { loc: ["body", "location"], type: "value_error" },
    ]);
    expect422(await t.owner.get(`${ALERTS}?alert_type=%00`), [{ loc: ["query", "alert_type"], type: "value_error" }]);
    expect((await listTechnicians(t.owner)).items).toEqual([technician]);
    expect(expectStatus(await t.owner.get(SCHEDULES), 200).total).toBe(0);
    expect(expectStatus(await t.owner.get(DISPATCHES), 200).total).toBe(0);
    expect(expectStatus(await t.owner.get(ALERTS), 200).total).toBe(0);
  });
});
