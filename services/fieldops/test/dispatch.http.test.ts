import { describe, expect, it } from "vitest";
import {
  eventually,
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
  createDispatch,
  createRequest,
  createTechnician,
  DISPATCHES,
  getDispatch,
  getTechnician,
  hoursFromNow,
  type Dispatch,
  type Items,
} from "./helpers.js";

// HTTP tests of emergency dispatch: create (with a technician or picked by the service), the
// status machine, cancel, the lists, and the jobs service taking the technician as provider.

const tenant = tenantFactory();

const DISPATCH_KEYS = [
  "cancelled_at",
  "completed_at",
  "created_at",
  "eta_at",
  "id",
  "notes",
  "service_request_id",
  "status",
  "technician",
  "technician_id",
  "updated_at",
];

async function listDispatches(client: ApiClient, path = DISPATCHES): Promise<Items<Dispatch>> {
  return expectStatus(await client.get<Items<Dispatch>>(path), 200);
}

async function put(client: ApiClient, id: string, body: Record<string, unknown>): Promise<Dispatch> {
  return expectStatus(await client.put<Dispatch>(`${DISPATCHES}/${id}`, body), 200);
}

async function providerOf(client: ApiClient, requestId: string): Promise<string | null> {
  return expectStatus(await client.get<{ provider_id: string | null }>(`/api/service-requests/${requestId}`), 200)
    .provider_id;
}

describe("POST /api/technicians/dispatch with a technician", () => {
  it("creates an assigned dispatch, answers 200, and the jobs service takes the technician as the request's provider", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Dana", phone_number: "555-010-4100" });
    const request = await createRequest(t.owner, { category: "plumbing" }, "water");
    const eta = "2031-01-01T03:30:00+01:00";
    const res = await t.member.post(DISPATCHES, {
      service_request_id: request.id.toUpperCase(),
      technician_id: technician.id.toUpperCase(),
      eta_at: eta,
      notes: " Side door ",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(DISPATCH_KEYS);
    expect(res.body).toMatchObject({
      service_request_id: request.id,
      technician_id: technician.id,
      technician: { id: technician.id, name: "Dana", phone_number: "+15550104100" },
      status: "assigned",
      eta_at: "2031-01-01T02:30:00.000Z",
      notes: "Side door",
      completed_at: null,
      cancelled_at: null,
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect(await getDispatch(t.owner, res.body.id)).toEqual(res.body);
    // A technician not on call may be sent explicitly; they are then busy.
    expect(await getTechnician(t.owner, technician.id)).toMatchObject({ on_call_now: false, available_now: false });
    await eventually(async () => ((await providerOf(t.owner, request.id)) === technician.id ? true : undefined));
  });

  it("keeps a provider the request already has", async () => {
    const t = await tenant();
    const provider = expectStatus(await t.owner.post("/api/service-providers", { name: "Existing Provider" }), 201);
    const technician = await createTechnician(t.owner, { name: "Other" });
    const request = await createRequest(t.owner, { provider_id: provider.id });
    const dispatch = await createDispatch(t.owner, { service_request_id: request.id, technician_id: technician.id });
    // The dispatch's events are consumed: a later dispatch-driven change is visible, the provider is not replaced.
    await put(t.owner, dispatch.id, { status: "en_route" });
    const unassigned = await createRequest(t.owner);
    await createDispatch(t.owner, { service_request_id: unassigned.id, technician_id: provider.id });
    await eventually(async () => ((await providerOf(t.owner, unassigned.id)) === provider.id ? true : undefined));
    expect(await providerOf(t.owner, request.id)).toBe(provider.id);
  });

  it("allows one active dispatch per service request (409), another once it is over", async () => {
    const t = await tenant();
    const a = await createTechnician(t.owner, { name: "A", is_on_call: true });
    const b = await createTechnician(t.owner, { name: "B", is_on_call: true });
    const request = await createRequest(t.owner);
    const first = await createDispatch(t.owner, { service_request_id: request.id, technician_id: a.id });
    expect(
      expectDetail(await t.owner.post(DISPATCHES, { service_request_id: request.id, technician_id: b.id }), 409),
    ).toContain(first.id);
    expectDetail(await t.owner.post(DISPATCHES, { service_request_id: request.id }), 409);
    expect((await t.owner.delete(`${DISPATCHES}/${first.id}`)).status).toBe(204);
    const second = await createDispatch(t.owner, { service_request_id: request.id, technician_id: b.id });
    await put(t.owner, second.id, { status: "completed" });
    await createDispatch(t.owner, { service_request_id: request.id, technician_id: a.id });
    expect((await listDispatches(t.owner, `${DISPATCHES}?service_request_id=${request.id}`)).total).toBe(3);
  });

  it("gives exactly one 200 to concurrent dispatches of one request", async () => {
    const t = await tenant();
    const technicians = await Promise.all(
      ["A", "B", "C", "D", "E"].map((name) => createTechnician(t.owner, { name, is_on_call: true })),
    );
    const request = await createRequest(t.owner);
    const answers = await Promise.all(
      technicians.map((technician) =>
        t.owner.post(DISPATCHES, { service_request_id: request.id, technician_id: technician.id }),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect((await listDispatches(t.owner)).total).toBe(1);
  });

  it("answers 422 naming each bad field, for unknown and other organizations' records too, and writes nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(t.owner, { name: "Mine", is_on_call: true });
    const request = await createRequest(t.owner);
    const foreignRequest = await createRequest(other.owner);
    const foreignTechnician = await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    expect422(await t.owner.post(DISPATCHES, {}), [{ loc: ["body", "service_request_id"], type: "missing" }]);
    expect422(
      await t.owner.post(DISPATCHES, {
        service_request_id: "x",
        technician_id: 7,
        eta_at: "soon",
        notes: "n".repeat(2001),
      }),
      [
        { loc: ["body", "service_request_id"], type: "uuid_parsing" },
        { loc: ["body", "technician_id"], type: "string_type" },
        { loc: ["body", "eta_at"], type: "datetime_parsing" },
        { loc: ["body", "notes"], type: "string_too_long" },
      ],
    );
    expect422(
      await t.owner.post(DISPATCHES, { service_request_id: foreignRequest.id, technician_id: foreignTechnician.id }),
      [
        { loc: ["body", "service_request_id"], type: "value_error" },
        { loc: ["body", "technician_id"], type: "value_error" },
      ],
    );
    expect422(await t.owner.post(DISPATCHES, { service_request_id: UNKNOWN_ID, technician_id: technician.id }), [
      { loc: ["body", "service_request_id"], type: "value_error" },
    ]);
    expect422(await t.owner.post(DISPATCHES, { service_request_id: request.id, technician_id: UNKNOWN_ID }), [
      { loc: ["body", "technician_id"], type: "value_error" },
    ]);
    expect422(await t.owner.request("POST", DISPATCHES, { rawBody: "{" }), [{ loc: ["body"], type: "json_invalid" }]);
    expect((await listDispatches(t.owner)).total).toBe(0);
    expect((await listDispatches(other.owner)).total).toBe(0);
    expect(await getTechnician(t.owner, technician.id)).toMatchObject({ available_now: true });
  });
});

describe("POST /api/technicians/dispatch without a technician (auto-pick)", () => {
  it("picks an available technician whose skills match the category or the emergency type, ignoring case", async () => {
    const t = await tenant();
    await createTechnician(t.owner, { name: "A Generalist", is_on_call: true, skills: ["painting"] });
    const plumber = await createTechnician(t.owner, { name: "B Plumber", is_on_call: true, skills: ["Plumbing"] });
    const electrician = await createTechnician(t.owner, {
      name: "C Electrician",
      is_on_call: true,
      skills: ["ELECTRICAL"],
    });
    const byCategory = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner, { category: "plumbing" })).id,
    });
    expect(byCategory).toMatchObject({
      technician_id: plumber.id,
      status: "assigned",
      technician: { name: "B Plumber" },
    });
    const byEmergency = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner, { category: "Roof" }, "electrical")).id,
    });
    expect(byEmergency.technician_id).toBe(electrician.id);
  });

  it("never picks someone unavailable: off duty, suspended, or already on a dispatch", async () => {
    const t = await tenant();
    await createTechnician(t.owner, { name: "A Off duty", skills: ["gas"] });
    await createTechnician(t.owner, { name: "B Suspended", skills: ["gas"], is_on_call: true, status: "suspended" });
    const busy = await createTechnician(t.owner, { name: "C Busy", skills: ["gas"], is_on_call: true });
    const fallback = await createTechnician(t.owner, { name: "D No skill", is_on_call: true });
    await createDispatch(t.owner, { service_request_id: (await createRequest(t.owner)).id, technician_id: busy.id });
    const picked = await createDispatch(t.owner, { service_request_id: (await createRequest(t.owner, {}, "gas")).id });
    expect(picked.technician_id).toBe(fallback.id);
  });

  it("then prefers the fewest dispatches today (cancelled ones not counted), then the name", async () => {
    const t = await tenant();
    const a = await createTechnician(t.owner, { name: "A", is_on_call: true, skills: ["hvac"] });
    const b = await createTechnician(t.owner, { name: "B", is_on_call: true, skills: ["hvac"] });
    const first = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner, { category: "hvac" })).id,
    });
    expect(first.technician_id).toBe(a.id);
    await put(t.owner, first.id, { status: "completed" });
    const second = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner, { category: "hvac" })).id,
    });
    expect(second.technician_id).toBe(b.id);
    expect((await t.owner.delete(`${DISPATCHES}/${second.id}`)).status).toBe(204);
    // A has one dispatch today, B none that counts.
    const third = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner, { category: "hvac" })).id,
    });
    expect(third.technician_id).toBe(b.id);
  });

  it("answers 409 when nobody is available, and writes nothing", async () => {
    const t = await tenant();
    await createTechnician(t.owner, { name: "Off duty" });
    const request = await createRequest(t.owner, {}, "water");
    expect(expectDetail(await t.owner.post(DISPATCHES, { service_request_id: request.id }), 409)).toMatch(
      /no technician available/i,
    );
    expect((await listDispatches(t.owner)).total).toBe(0);
  });

  it("never gives one technician to two emergencies picked at the same time", async () => {
    const t = await tenant();
    await Promise.all(["A", "B", "C"].map((name) => createTechnician(t.owner, { name, is_on_call: true })));
    const requests = await Promise.all([1, 2, 3, 4, 5].map(() => createRequest(t.owner)));
    const answers = await Promise.all(
      requests.map((request) => t.owner.post<Dispatch>(DISPATCHES, { service_request_id: request.id })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 409, 409]);
    const picked = answers.filter((res) => res.status === 200).map((res) => res.body.technician_id);
    expect(new Set(picked).size).toBe(3);
    expect((await listDispatches(t.owner, `${DISPATCHES}/active`)).total).toBe(3);
  });
});

describe("PUT /api/technicians/dispatch/{dispatch_id}", () => {
  it("moves forward through the statuses, skipping steps if asked, and stamps completed_at", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Mover", is_on_call: true });
    const dispatch = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: technician.id,
    });
    const enRoute = await put(t.owner, dispatch.id, { status: "en_route", eta_at: "2031-01-01T10:00:00Z" });
    expect(enRoute).toEqual({
      ...dispatch,
      status: "en_route",
      eta_at: "2031-01-01T10:00:00.000Z",
      updated_at: enRoute.updated_at,
    });
    expect(await put(t.owner, dispatch.id, { status: "en_route", notes: "Traffic" })).toMatchObject({
      status: "en_route",
      notes: "Traffic",
    });
    expectDetail(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: "assigned" }), 409);
    const onSite = await put(t.owner, dispatch.id, { status: "on_site", eta_at: null });
    expect(onSite).toMatchObject({ status: "on_site", eta_at: null, completed_at: null });
    expectDetail(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: "pending" }), 409);
    const done = await put(t.owner, dispatch.id, { status: "completed" });
    expect(done).toMatchObject({ status: "completed", cancelled_at: null });
    expectRecent(done.completed_at);
    // A finished dispatch never changes again.
    for (const body of [{ status: "completed" }, { status: "cancelled" }, { notes: "late note" }, {}]) {
      expectDetail(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, body), 409);
    }
    expect(await getDispatch(t.owner, dispatch.id)).toEqual(done);
    expect(await getTechnician(t.owner, technician.id)).toMatchObject({ available_now: true });
  });

  it("skips from assigned straight to completed, and cancels from any active status", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Skipper", is_on_call: true });
    const quick = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: technician.id,
    });
    expect((await put(t.owner, quick.id, { status: "completed" })).status).toBe("completed");
    const cancelled = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: technician.id,
    });
    await put(t.owner, cancelled.id, { status: "on_site" });
    const res = await put(t.owner, cancelled.id, { status: "cancelled" });
    expect(res).toMatchObject({ status: "cancelled", completed_at: null });
    expectRecent(res.cancelled_at);
    expectDetail(await t.owner.put(`${DISPATCHES}/${cancelled.id}`, { status: "on_site" }), 409);
  });

  it("reassigns to another technician, who becomes busy while the first is free", async () => {
    const t = await tenant();
    const first = await createTechnician(t.owner, { name: "First", is_on_call: true });
    const second = await createTechnician(t.owner, { name: "Second", is_on_call: true, phone_number: "555-010-4200" });
    const dispatch = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: first.id,
    });
    const moved = await put(t.owner, dispatch.id, { technician_id: second.id.toUpperCase() });
    expect(moved).toMatchObject({
      status: "assigned",
      technician_id: second.id,
      technician: { id: second.id, name: "Second", phone_number: "+15550104200" },
    });
    expect((await getTechnician(t.owner, first.id)).available_now).toBe(true);
    expect((await getTechnician(t.owner, second.id)).available_now).toBe(false);
    expect(await put(t.owner, dispatch.id, {})).toEqual(moved);
  });

  it("answers 422 naming each bad field and changes nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(t.owner, { name: "Steady", is_on_call: true });
    const foreign = await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    const dispatch = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: technician.id,
    });
    expect422(
      await t.owner.put(`${DISPATCHES}/${dispatch.id}`, {
        status: "lost",
        eta_at: "later",
        technician_id: null,
        notes: false,
      }),
      [
        { loc: ["body", "status"], type: "enum" },
        { loc: ["body", "eta_at"], type: "datetime_parsing" },
        { loc: ["body", "technician_id"] },
        { loc: ["body", "notes"], type: "string_type" },
      ],
    );
    expect422(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { status: null }), [{ loc: ["body", "status"] }]);
    expect422(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { technician_id: foreign.id, status: "en_route" }), [
      { loc: ["body", "technician_id"], type: "value_error" },
    ]);
    expect422(await t.owner.put(`${DISPATCHES}/${dispatch.id}`, { technician_id: UNKNOWN_ID }), [
      { loc: ["body", "technician_id"], type: "value_error" },
    ]);
    expect422(await t.owner.put(`${DISPATCHES}/xyz`, {}), [{ loc: ["path", "dispatch_id"], type: "uuid_parsing" }]);
    expect422(await t.owner.request("PUT", `${DISPATCHES}/${dispatch.id}`), [{ loc: ["body"] }]);
    expect(await getDispatch(t.owner, dispatch.id)).toEqual(dispatch);
  });

  it("answers 404 for an unknown dispatch and another organization's, which stays unchanged", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    const foreign = await createDispatch(other.owner, {
      service_request_id: (await createRequest(other.owner)).id,
      technician_id: technician.id,
    });
    expectDetail(await t.owner.put(`${DISPATCHES}/${UNKNOWN_ID}`, { status: "en_route" }), 404);
    expectDetail(await t.owner.put(`${DISPATCHES}/${foreign.id}`, { status: "cancelled" }), 404);
    expectDetail(await t.owner.put(`${DISPATCHES}/${foreign.id}`, {}), 404);
    expect(await getDispatch(other.owner, foreign.id)).toEqual(foreign);
  });
});

describe("DELETE /api/technicians/dispatch/{dispatch_id}", () => {
  it("cancels with 204 (again 204), frees the technician, and refuses a completed dispatch with 409", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Freed", is_on_call: true });
    const dispatch = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: technician.id,
    });
    const res = await t.member.delete(`${DISPATCHES}/${dispatch.id.toUpperCase()}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const cancelled = await getDispatch(t.owner, dispatch.id);
    expect(cancelled).toMatchObject({ status: "cancelled", technician_id: technician.id });
    expectRecent(cancelled.cancelled_at);
    expect((await t.owner.delete(`${DISPATCHES}/${dispatch.id}`)).status).toBe(204);
    expect(await getDispatch(t.owner, dispatch.id)).toEqual(cancelled);
    expect((await getTechnician(t.owner, technician.id)).available_now).toBe(true);

    const done = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: technician.id,
    });
    await put(t.owner, done.id, { status: "completed" });
    expectDetail(await t.owner.delete(`${DISPATCHES}/${done.id}`), 409);
    expect((await getDispatch(t.owner, done.id)).status).toBe("completed");
  });

  it("answers 404 for an unknown dispatch and another organization's, which stays active; 422 for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    const foreign = await createDispatch(other.owner, {
      service_request_id: (await createRequest(other.owner)).id,
      technician_id: technician.id,
    });
    expectDetail(await t.owner.delete(`${DISPATCHES}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.delete(`${DISPATCHES}/${foreign.id}`), 404);
    expect((await getDispatch(other.owner, foreign.id)).status).toBe("assigned");
    expect422(await t.owner.delete(`${DISPATCHES}/1`), [{ loc: ["path", "dispatch_id"], type: "uuid_parsing" }]);
  });
});

describe("GET /api/technicians/dispatch, /active and /{dispatch_id}", () => {
  it("lists newest first with filters, and the active ones by soonest ETA, none last", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreignTech = await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    await createDispatch(other.owner, {
      service_request_id: (await createRequest(other.owner)).id,
      technician_id: foreignTech.id,
    });
    const a = await createTechnician(t.owner, { name: "A" });
    const b = await createTechnician(t.owner, { name: "B" });
    const noEta = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: a.id,
    });
    const late = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: b.id,
      eta_at: hoursFromNow(2),
    });
    const soon = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: a.id,
      eta_at: hoursFromNow(1),
    });
    const done = await createDispatch(t.owner, {
      service_request_id: (await createRequest(t.owner)).id,
      technician_id: b.id,
      eta_at: hoursFromNow(0.5),
    });
    await put(t.owner, done.id, { status: "completed" });

    const all = await listDispatches(t.owner);
    expect(Object.keys(all).sort()).toEqual(["items", "total"]);
    expect(idsOf(all.items)).toEqual([done.id, soon.id, late.id, noEta.id]);
    expect(all.total).toBe(4);
    expect(idsOf((await listDispatches(t.owner, `${DISPATCHES}?status=assigned`)).items)).toEqual([
      soon.id,
      late.id,
      noEta.id,
    ]);
    expect(idsOf((await listDispatches(t.owner, `${DISPATCHES}?status=completed`)).items)).toEqual([done.id]);
    expect(idsOf((await listDispatches(t.owner, `${DISPATCHES}?technician_id=${b.id}`)).items)).toEqual([
      done.id,
      late.id,
    ]);
    expect(
      idsOf((await listDispatches(t.owner, `${DISPATCHES}?service_request_id=${late.service_request_id}`)).items),
    ).toEqual([late.id]);
    const active = await listDispatches(t.owner, `${DISPATCHES}/active`);
    expect(idsOf(active.items)).toEqual([soon.id, late.id, noEta.id]);
    expect(active.total).toBe(3);
    expect(active.items[0]).toEqual(soon);
  });

  it("answers 422 for a bad filter, 404 for an unknown or foreign dispatch", async () => {
    const t = await tenant();
    const other = await tenant();
    const technician = await createTechnician(other.owner, { name: "Foreign", is_on_call: true });
    const foreign = await createDispatch(other.owner, {
      service_request_id: (await createRequest(other.owner)).id,
      technician_id: technician.id,
    });
    expect422(await t.owner.get(`${DISPATCHES}?status=lost&technician_id=x`), [
      { loc: ["query", "status"], type: "enum" },
      { loc: ["query", "technician_id"], type: "uuid_parsing" },
    ]);
    expectDetail(await t.owner.get(`${DISPATCHES}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.get(`${DISPATCHES}/${foreign.id}`), 404);
  });
});

describe("a deleted service request", () => {
  it("cancels its active dispatch, which frees the technician", async () => {
    const t = await tenant();
    const technician = await createTechnician(t.owner, { name: "Released", is_on_call: true });
    const request = await createRequest(t.owner);
    const dispatch = await createDispatch(t.owner, { service_request_id: request.id, technician_id: technician.id });
    expect((await t.owner.delete(`/api/service-requests/${request.id}`)).status).toBe(204);
    const cancelled = await eventually(async () => {
      const current = await getDispatch(t.owner, dispatch.id);
      return current.status === "cancelled" ? current : undefined;
    });
    expect(cancelled.cancelled_at).not.toBeNull();
    expect((await getTechnician(t.owner, technician.id)).available_now).toBe(true);
  });
});
