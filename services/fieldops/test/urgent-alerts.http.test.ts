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
import { ALERTS, createRequest } from "./helpers.js";

// HTTP tests of the urgent-alert routes: create, list with filters, read, replace, delete.

const tenant = tenantFactory();

const ALERT_KEYS = [
  "alert_type",
  "contact_id",
  "created_at",
  "description",
  "id",
  "location",
  "resolution_status",
  "resolved_at",
  "service_request_id",
  "title",
  "updated_at",
];

interface Alert {
  id: string;
  title: string | null;
  description: string | null;
  location: string;
  alert_type: string;
  resolution_status: string;
  contact_id: string | null;
  service_request_id: string | null;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

interface AlertList {
  items: Alert[];
  total: number;
  page: number;
  page_size: number;
}

async function createAlert(client: ApiClient, body: Record<string, unknown>): Promise<Alert> {
  return expectStatus(await client.post<Alert>(ALERTS, body), 201);
}

async function listAlerts(client: ApiClient, query = ""): Promise<AlertList> {
  return expectStatus(await client.get<AlertList>(`${ALERTS}${query}`), 200);
}

async function createContact(client: ApiClient): Promise<string> {
  return expectStatus(await client.post<{ id: string }>("/api/contacts", { name: "Caller" }), 201).id;
}

describe("POST /api/urgent-alerts", () => {
  it("creates an open alert with every field and answers 201", async () => {
    const t = await tenant();
    const contactId = await createContact(t.owner);
    const request = await createRequest(t.owner);
    const res = await t.member.post(ALERTS, {
      title: " Gas smell ",
      description: "Caller smells gas in the basement",
      location: "12 Elm St",
      alert_type: "gas_leak",
      contact_id: contactId.toUpperCase(),
      service_request_id: request.id,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ALERT_KEYS);
    expect(res.body).toMatchObject({
      title: "Gas smell",
      description: "Caller smells gas in the basement",
      location: "12 Elm St",
      alert_type: "gas_leak",
      resolution_status: "open",
      contact_id: contactId,
      service_request_id: request.id,
      resolved_at: null,
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    expect(expectStatus(await t.owner.get(`${ALERTS}/${res.body.id}`), 200)).toEqual(res.body);
  });

  it("stamps resolved_at when created resolved; optional fields default to null", async () => {
    const t = await tenant();
    const alert = await createAlert(t.owner, { location: "Shop", alert_type: "flood", resolution_status: "resolved" });
    expect(alert).toMatchObject({
      title: null,
      description: null,
      contact_id: null,
      service_request_id: null,
      resolution_status: "resolved",
    });
    expectRecent(alert.resolved_at);
  });

  it("answers 422 naming each bad field, for links to unknown or other organizations' records too, and stores nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreignContact = await createContact(other.owner);
    const foreignRequest = await createRequest(other.owner);
    expect422(await t.owner.post(ALERTS, {}), [
      { loc: ["body", "location"], type: "missing" },
      { loc: ["body", "alert_type"], type: "missing" },
    ]);
    expect422(
      await t.owner.post(ALERTS, {
        location: " ",
        alert_type: "",
        resolution_status: "closed",
        contact_id: "x",
        service_request_id: 5,
        title: "t".repeat(201),
      }),
      [
        { loc: ["body", "title"], type: "string_too_long" },
        { loc: ["body", "location"], type: "string_too_short" },
        { loc: ["body", "alert_type"], type: "string_too_short" },
        { loc: ["body", "resolution_status"], type: "enum" },
        { loc: ["body", "contact_id"], type: "uuid_parsing" },
        { loc: ["body", "service_request_id"], type: "string_type" },
      ],
    );
    expect422(
      await t.owner.post(ALERTS, {
        location: "L",
        alert_type: "T",
        contact_id: foreignContact,
        service_request_id: foreignRequest.id,
      }),
      [
        { loc: ["body", "contact_id"], type: "value_error" },
        { loc: ["body", "service_request_id"], type: "value_error" },
      ],
    );
    expect422(await t.owner.post(ALERTS, { location: "L", alert_type: "T", service_request_id: UNKNOWN_ID }), [
      { loc: ["body", "service_request_id"], type: "value_error" },
    ]);
    expect422(await t.owner.request("POST", ALERTS, { rawBody: "nope" }), [{ loc: ["body"], type: "json_invalid" }]);
    expect422(await t.owner.request("POST", ALERTS), [{ loc: ["body"] }]);
    expect((await listAlerts(t.owner)).total).toBe(0);
  });
});

describe("GET /api/urgent-alerts", () => {
  it("pages newest first with page_size 50 by default, filters matching whole values ignoring case", async () => {
    const t = await tenant();
    const other = await tenant();
    await createAlert(other.owner, { location: "Main St", alert_type: "gas" });
    const first = await createAlert(t.owner, { location: "Main St", alert_type: "gas" });
    const second = await createAlert(t.owner, {
      location: "main st",
      alert_type: "water",
      resolution_status: "acknowledged",
    });
    const third = await createAlert(t.owner, {
      location: "Main Street",
      alert_type: "GAS",
      resolution_status: "resolved",
    });

    const all = await listAlerts(t.owner);
    expect(all).toEqual({ items: [third, second, first], total: 3, page: 1, page_size: 50 });
    expect(idsOf((await listAlerts(t.owner, "?location=MAIN%20ST")).items)).toEqual([second.id, first.id]);
    expect(idsOf((await listAlerts(t.owner, "?alert_type=gas")).items)).toEqual([third.id, first.id]);
    expect(idsOf((await listAlerts(t.owner, "?resolution_status=Acknowledged")).items)).toEqual([second.id]);
    expect(
      idsOf((await listAlerts(t.owner, "?alert_type=gas&resolution_status=open&location=main%20st")).items),
    ).toEqual([first.id]);
    expect((await listAlerts(t.owner, "?location=Main")).total).toBe(0);
    const page = await listAlerts(t.owner, "?page=2&page_size=2");
    expect(page).toEqual({ items: [first], total: 3, page: 2, page_size: 2 });
    expect(await listAlerts(t.owner, "?page=9")).toEqual({ items: [], total: 3, page: 9, page_size: 50 });
  });

  it("answers 422 naming each bad query parameter", async () => {
    const t = await tenant();
    expect422(await t.owner.get(`${ALERTS}?page=0&page_size=101&location=${"l".repeat(501)}`), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
      { loc: ["query", "location"], type: "string_too_long" },
    ]);
    expect422(await t.owner.get(`${ALERTS}?page=x&page_size=1.5`), [
      { loc: ["query", "page"], type: "int_parsing" },
      { loc: ["query", "page_size"], type: "int_parsing" },
    ]);
  });
});

describe("GET /api/urgent-alerts/{alert_id}", () => {
  it("answers 404 for an unknown alert and another organization's, 422 for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const foreign = await createAlert(other.owner, { location: "L", alert_type: "T" });
    expectDetail(await t.owner.get(`${ALERTS}/${UNKNOWN_ID}`), 404);
    expectDetail(await t.owner.get(`${ALERTS}/${foreign.id}`), 404);
    expect422(await t.owner.get(`${ALERTS}/abc`), [{ loc: ["path", "alert_id"], type: "uuid_parsing" }]);
  });
});

describe("PUT /api/urgent-alerts/{alert_id}", () => {
  it("replaces the record: omitted optional fields are cleared, resolved stamps resolved_at, reopening clears it", async () => {
    const t = await tenant();
    const contactId = await createContact(t.owner);
    const before = await createAlert(t.owner, {
      title: "T",
      description: "D",
      location: "L",
      alert_type: "A",
      contact_id: contactId,
    });
    const replaced = expectStatus(
      await t.owner.put<Alert>(`${ALERTS}/${before.id}`, {
        location: "New place",
        alert_type: "B",
        resolution_status: "resolved",
      }),
      200,
    );
    expect(replaced).toEqual({
      ...before,
      title: null,
      description: null,
      contact_id: null,
      location: "New place",
      alert_type: "B",
      resolution_status: "resolved",
      resolved_at: replaced.resolved_at,
      updated_at: replaced.updated_at,
    });
    expectRecent(replaced.resolved_at);
    // Still resolved: the first resolution time is kept.
    const again = expectStatus(
      await t.owner.put<Alert>(`${ALERTS}/${before.id}`, {
        location: "New place",
        alert_type: "B",
        resolution_status: "resolved",
        title: "Done",
      }),
      200,
    );
    expect(again).toMatchObject({ title: "Done", resolved_at: replaced.resolved_at });
    const reopened = expectStatus(
      await t.owner.put<Alert>(`${ALERTS}/${before.id}`, { location: "New place", alert_type: "B" }),
      200,
    );
    expect(reopened).toMatchObject({ resolution_status: "open", resolved_at: null, title: null });
    expect(expectStatus(await t.owner.get(`${ALERTS}/${before.id}`), 200)).toEqual(reopened);
  });

  it("answers 422 naming the field and changes nothing; 404 for an unknown or foreign alert", async () => {
    const t = await tenant();
    const other = await tenant();
    const before = await createAlert(t.owner, { location: "L", alert_type: "A" });
    const foreign = await createAlert(other.owner, { location: "L", alert_type: "A" });
    expect422(await t.owner.put(`${ALERTS}/${before.id}`, { location: "L" }), [
      { loc: ["body", "alert_type"], type: "missing" },
    ]);
    expect422(await t.owner.put(`${ALERTS}/${before.id}`, { location: "L", alert_type: "A", contact_id: UNKNOWN_ID }), [
      { loc: ["body", "contact_id"], type: "value_error" },
    ]);
    expect422(
      await t.owner.put(`${ALERTS}/${before.id}`, { location: null, alert_type: "A", resolution_status: "done" }),
      [
        { loc: ["body", "location"], type: "missing" },
        { loc: ["body", "resolution_status"], type: "enum" },
      ],
    );
    expect(expectStatus(await t.owner.get(`${ALERTS}/${before.id}`), 200)).toEqual(before);
    expectDetail(await t.owner.put(`${ALERTS}/${UNKNOWN_ID}`, { location: "L", alert_type: "A" }), 404);
    expectDetail(await t.owner.put(`${ALERTS}/${foreign.id}`, { location: "Hijack", alert_type: "A" }), 404);
    expect(expectStatus(await other.owner.get(`${ALERTS}/${foreign.id}`), 200)).toEqual(foreign);
    expect422(await t.owner.put(`${ALERTS}/1`, { location: "L", alert_type: "A" }), [
      { loc: ["path", "alert_id"], type: "uuid_parsing" },
    ]);
  });
});

describe("DELETE /api/urgent-alerts/{alert_id}", () => {
  it("deletes with 204, then 404; 404 for an unknown or foreign alert, which stays; 422 for a malformed id", async () => {
    const t = await tenant();
    const other = await tenant();
    const doomed = await createAlert(t.owner, { location: "L", alert_type: "A" });
    const foreign = await createAlert(other.owner, { location: "L", alert_type: "A" });
    const res = await t.member.delete(`${ALERTS}/${doomed.id.toUpperCase()}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectDetail(await t.owner.get(`${ALERTS}/${doomed.id}`), 404);
    expectDetail(await t.owner.delete(`${ALERTS}/${doomed.id}`), 404);
    expectDetail(await t.owner.delete(`${ALERTS}/${foreign.id}`), 404);
    expect(expectStatus(await other.owner.get(`${ALERTS}/${foreign.id}`), 200)).toEqual(foreign);
    expect422(await t.owner.delete(`${ALERTS}/x`), [{ loc: ["path", "alert_id"], type: "uuid_parsing" }]);
  });
});

describe("links to records deleted elsewhere", () => {
  it("drops the contact and the service request when the CRM and jobs delete them", async () => {
    const t = await tenant();
    const contactId = await createContact(t.owner);
    const request = await createRequest(t.owner);
    const alert = await createAlert(t.owner, {
      location: "L",
      alert_type: "A",
      contact_id: contactId,
      service_request_id: request.id,
    });
    expect((await t.owner.delete(`/api/contacts/${contactId}`)).status).toBe(204);
    expect((await t.owner.delete(`/api/service-requests/${request.id}`)).status).toBe(204);
    const unlinked = await eventually(async () => {
      const current = expectStatus(await t.owner.get<Alert>(`${ALERTS}/${alert.id}`), 200);
      return current.contact_id === null && current.service_request_id === null ? current : undefined;
    });
    expect(unlinked).toMatchObject({ location: "L", alert_type: "A" });
  });
});
