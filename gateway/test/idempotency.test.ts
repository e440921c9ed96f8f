import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDEMPOTENCY_TABLE_NAME } from "@voiceops/platform";
import {
  AdminClient,
  type ApiClient,
  type ApiResponse,
  eventually,
  newTenant,
  type Tenant,
  testEnv,
} from "@voiceops/platform/testing";
import { type RunningSystem, startSystem } from "../src/system.js";

// Idempotency-Key (CONTRACT.md "Idempotent requests") over real HTTP, in both modes: replays,
// refusals, concurrency, restarts, expiry, and the header's own validation.

const IN_FLIGHT = "A request with this Idempotency-Key is still being processed";
const HEADER_LOC = ["header", "idempotency-key"];

const key = () => `key-${randomUUID()}`;
const keyed = (k: string, headers: Record<string, string> = {}) => ({ headers: { "idempotency-key": k, ...headers } });

function expectReplay(replay: ApiResponse, first: ApiResponse): void {
  expect(replay.status).toBe(first.status);
  expect(replay.body).toEqual(first.body);
  expect(replay.headers.get("location")).toBe(first.headers.get("location"));
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
}

function expectKeyRefused(res: ApiResponse): void {
  expect(res.status).toBe(422);
  expect(res.body.detail).toHaveLength(1);
  expect(res.body.detail[0].loc).toEqual(HEADER_LOC);
}

async function countRows(system: RunningSystem, sql: string, params: unknown[]): Promise<number> {
  const result = await system.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return Number(result.rows[0]?.n);
}

/** Counts the events of each subject published from now on, by the id of the record they carry. */
async function eventCounter(system: RunningSystem, subject: string) {
  const seen: string[] = [];
  const subscription = await system.bus.subscribe({
    durable: `idempotency_test_${randomUUID().replaceAll("-", "")}`,
    subject,
    startAt: "new",
    expireAfterIdleMs: 60_000,
    handler: async (message) => {
      seen.push(`${message.subject} ${Buffer.from(message.data).toString("latin1")}`);
    },
  });
  return {
    count: (subjectName: string, id: string) =>
      seen.filter((entry) => entry.startsWith(`${subjectName} `) && entry.includes(id)).length,
    stop: () => subscription.stop(),
  };
}

describe("Idempotency-Key", () => {
  let system: RunningSystem;
  let tenant: Tenant;
  let api: ApiClient;
  const newOrg = () => newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));

  beforeAll(async () => {
    system = await startSystem({ env: testEnv(), inMemory: true });
    tenant = await newOrg();
    api = tenant.owner;
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("replays a POST: same status and body, Idempotent-Replayed: true, no second row or event", async () => {
    const events = await eventCounter(system, "crm.contact.*");
    try {
      const k = key();
      const name = `Replay ${randomUUID()}`;
      const first = await api.request("POST", "/api/contacts", {
        body: { name, phone_number: "555-010-1001" },
        ...keyed(k),
      });
      expect(first.status).toBe(201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const again = await api.request("POST", "/api/contacts", {
        body: { name, phone_number: "555-010-1001" },
        ...keyed(k),
      });
      expectReplay(again, first);
      expect(await countRows(system, "crm.contacts WHERE org_id = $1 AND name = $2", [tenant.orgId, name])).toBe(1);
      await eventually(async () => (events.count("crm.contact.created", first.body.id) === 1 ? true : undefined));
      // A later request with a new key runs: the phone number is taken now.
      expect(
        (await api.request("POST", "/api/contacts", { body: { name, phone_number: "555-010-1001" }, ...keyed(key()) }))
          .status,
      ).toBe(409);
      expect(events.count("crm.contact.created", first.body.id)).toBe(1);
    } finally {
      await events.stop();
    }
  });

  it("takes the quoted form of a key as the bare key, and JSON bodies as values", async () => {
    const k = key();
    const name = `Quoted ${randomUUID()}`;
    const first = await api.request("POST", "/api/contacts", {
      rawBody: JSON.stringify({ name, notes: "a", email: "q@example.com" }),
      ...keyed(`"${k}"`),
    });
    expect(first.status).toBe(201);
    const reordered = `{ "email" : "q@example.com",\n  "notes": "a", "name": ${JSON.stringify(name)} }`;
    expectReplay(await api.request("POST", "/api/contacts", { rawBody: reordered, ...keyed(k) }), first);
    expect(await countRows(system, "crm.contacts WHERE org_id = $1 AND name = $2", [tenant.orgId, name])).toBe(1);
  });

  it("refuses a key used for another body, path, method or service with 422 on the header", async () => {
    const k = key();
    const name = `Mismatch ${randomUUID()}`;
    const first = await api.request("POST", "/api/contacts", { body: { name }, ...keyed(k) });
    expect(first.status).toBe(201);
    expectKeyRefused(await api.request("POST", "/api/contacts", { body: { name: `${name} 2` }, ...keyed(k) }));
    expectKeyRefused(await api.request("POST", "/api/contacts?x=1", { body: { name }, ...keyed(k) }));
    expectKeyRefused(await api.request("PUT", `/api/contacts/${first.body.id}`, { body: { name }, ...keyed(k) }));
    expectKeyRefused(
      await api.request("POST", "/api/leads", { body: { name, phone_number: "555-010-1002" }, ...keyed(k) }),
    );
    // Another service's route: keys belong to the organization, not to one service.
    expectKeyRefused(
      await api.request("POST", "/api/service-requests", {
        body: { description: "leak", contact_id: first.body.id },
        ...keyed(k),
      }),
    );
    expect(await countRows(system, "crm.contacts WHERE org_id = $1 AND name LIKE $2", [tenant.orgId, `${name}%`])).toBe(
      1,
    );
    expect(await countRows(system, "jobs.service_requests WHERE org_id = $1", [tenant.orgId])).toBe(0);
  });

  it("makes one change of 20 identical requests at once; the others replay or answer 409 with Retry-After", async () => {
    const k = key();
    const name = `Concurrent ${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.request("POST", "/api/contacts", { body: { name }, ...keyed(k) })),
    );
    const created = answers.filter((res) => res.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.filter((res) => res.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    for (const res of created) expect(res.body).toEqual(created[0]?.body);
    for (const res of answers.filter((r) => r.status !== 201)) {
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: IN_FLIGHT });
      expect(res.headers.get("retry-after")).toBe("1");
    }
    expect(await countRows(system, "crm.contacts WHERE org_id = $1 AND name = $2", [tenant.orgId, name])).toBe(1);
  });

  it("keeps no 401, 403 or 422: a corrected retry with the same key runs", async () => {
    const k = key();
    const name = `Corrected ${randomUUID()}`;
    expect(
      (await api.request("POST", "/api/contacts", { body: { name, email: "not-an-email" }, ...keyed(k) })).status,
    ).toBe(422);
    const created = await api.request("POST", "/api/contacts", { body: { name }, ...keyed(k) });
    expect(created.status).toBe(201);
    expect(created.headers.get("idempotent-replayed")).toBeNull();

    const d = key();
    expect((await tenant.member.request("DELETE", `/api/contacts/${created.body.id}`, keyed(d))).status).toBe(403);
    const anonymous = await fetch(`${system.url}/api/contacts/${created.body.id}`, {
      method: "DELETE",
      headers: { "idempotency-key": d, "x-api-key": "vo_wrong" },
    });
    expect(anonymous.status).toBe(401);
    const deleted = await api.request("DELETE", `/api/contacts/${created.body.id}`, keyed(d));
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get("idempotent-replayed")).toBeNull();
    // DELETE replays its 204; the contact is gone, so a new key answers 404.
    const replay = await api.request("DELETE", `/api/contacts/${created.body.id}`, keyed(d));
    expect(replay.status).toBe(204);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await api.request("DELETE", `/api/contacts/${created.body.id}`, keyed(key()))).status).toBe(404);
  });

  it("replays a PUT, and keeps a 404 answer", async () => {
    const events = await eventCounter(system, "crm.contact.*");
    try {
      const contact = await api.post("/api/contacts", { name: `Put ${randomUUID()}` });
      const k = key();
      const first = await api.request("PUT", `/api/contacts/${contact.body.id}`, {
        body: { notes: "first" },
        ...keyed(k),
      });
      expect(first.status).toBe(200);
      // Changed in between by another request: the replay answers what the first request did.
      expect((await api.put(`/api/contacts/${contact.body.id}`, { notes: "between" })).status).toBe(200);
      expectReplay(
        await api.request("PUT", `/api/contacts/${contact.body.id}`, { body: { notes: "first" }, ...keyed(k) }),
        first,
      );
      expect((await api.get(`/api/contacts/${contact.body.id}`)).body.notes).toBe("between");
      await eventually(async () => (events.count("crm.contact.updated", contact.body.id) === 2 ? true : undefined));

      const missing = randomUUID();
      const k404 = key();
      const notFound = await api.request("PUT", `/api/contacts/${missing}`, { body: { notes: "x" }, ...keyed(k404) });
      expect(notFound.status).toBe(404);
      expectReplay(
        await api.request("PUT", `/api/contacts/${missing}`, { body: { notes: "x" }, ...keyed(k404) }),
        notFound,
      );
    } finally {
      await events.stop();
    }
  });

  it("keeps keys per organization", async () => {
    const other = await newOrg();
    const k = key();
    const name = `Per org ${randomUUID()}`;
    const mine = await api.request("POST", "/api/contacts", { body: { name }, ...keyed(k) });
    const theirs = await other.owner.request("POST", "/api/contacts", { body: { name }, ...keyed(k) });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it("replays an upload by its form's parts (a new boundary is the same request); another file is another request", async () => {
    const form = (text: string) => {
      const data = new FormData();
      data.append("file", new Blob([text], { type: "text/plain" }), "prices.txt");
      data.append("title", "Prices");
      return data;
    };
    const k = key();
    const text = `Drain cleaning costs 120 dollars. ${randomUUID()}`;
    const first = await api.upload("POST", "/api/knowledge-base/sources/upload", form(text), undefined, {
      "idempotency-key": k,
    });
    expect(first.status).toBe(201);
    const again = await api.upload("POST", "/api/knowledge-base/sources/upload", form(text), undefined, {
      "idempotency-key": k,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    expectKeyRefused(
      await api.upload("POST", "/api/knowledge-base/sources/upload", form(`${text} changed`), undefined, {
        "idempotency-key": k,
      }),
    );
    expect(
      await countRows(system, "comms.knowledge_sources WHERE org_id = $1 AND title = 'Prices'", [tenant.orgId]),
    ).toBe(1);
  });

  it("answers 422, never 5xx, to malformed keys, and runs nothing", async () => {
    const name = `Fuzz ${randomUUID()}`;
    for (const value of ["", " ", '""', "a b", "x".repeat(256), `"${"x".repeat(256)}"`, "caf\u00e9", "tab\there"]) {
      const res = await api.request("POST", "/api/contacts", { body: { name }, headers: { "idempotency-key": value } });
      expect(res.status, JSON.stringify(value)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(HEADER_LOC);
    }
    // 255 characters is the limit, quoted or not.
    expect(
      (await api.request("POST", "/api/contacts", { body: { name: `${name} long` }, ...keyed(`"${"y".repeat(255)}"`) }))
        .status,
    ).toBe(201);
    // Bytes fetch will not send: control characters and raw non-ASCII.
    const port = new URL(system.url).port;
    for (const raw of [
      Buffer.from("k\u0001ey"),
      Buffer.from("k\u007fey"),
      Buffer.from([0x6b, 0xc3, 0xa9]),
      Buffer.from([0x6b, 0x00, 0x6b]),
    ]) {
      const status = await rawRequest(Number(port), tenant.owner.apiKey as string, raw, name);
      expect(status, raw.toString("hex")).toBeGreaterThanOrEqual(400);
      expect(status, raw.toString("hex")).toBeLessThan(500);
    }
    expect(await countRows(system, "crm.contacts WHERE org_id = $1 AND name = $2", [tenant.orgId, name])).toBe(0);
  });
});

/** A POST /api/contacts with an Idempotency-Key header of arbitrary bytes; resolves its status. */
function rawRequest(port: number, apiKey: string, keyBytes: Buffer, name: string): Promise<number> {
  const body = JSON.stringify({ name });
  const head = Buffer.from(
    `POST /api/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nIdempotency-Key: `,
  );
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () =>
      socket.end(Buffer.concat([head, keyBytes, Buffer.from(`\r\n\r\n${body}`)])),
    );
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(Number(answer.split(" ", 2)[1])));
    socket.on("error", reject);
  });
}

// Replicas share a database: only the distributed mode has them (PGlite is one process's).
describe.skipIf(!process.env.DATABASE_URL)("Idempotency-Key across gateway replicas", () => {
  it("makes one change of 20 identical requests spread over two replicas", async () => {
    const env = testEnv();
    const [one, two] = await Promise.all([startSystem({ env }), startSystem({ env })]);
    try {
      const tenant = await newTenant(one.url, new AdminClient(one.adminUrl, one.adminToken));
      const apiKey = tenant.owner.apiKey as string;
      const clients = [
        new (tenant.owner.constructor as typeof ApiClient)(one.url, apiKey),
        new (tenant.owner.constructor as typeof ApiClient)(two.url, apiKey),
      ];
      const k = key();
      const name = `Replicas ${randomUUID()}`;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          clients[i % 2]!.request("POST", "/api/contacts", { body: { name }, ...keyed(k) }),
        ),
      );
      expect(
        answers.filter((res) => res.status === 201 && res.headers.get("idempotent-replayed") === null),
      ).toHaveLength(1);
      for (const res of answers) expect([201, 409]).toContain(res.status);
      expect(await countRows(one, "crm.contacts WHERE org_id = $1 AND name = $2", [tenant.orgId, name])).toBe(1);
      // The other replica replays what the first one kept.
      const first = answers.find((res) => res.status === 201) as ApiResponse;
      for (const client of clients)
        expect((await client.request("POST", "/api/contacts", { body: { name }, ...keyed(k) })).body).toEqual(
          first.body,
        );
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  });
});

describe("Idempotency-Key across restarts and expiry", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "voiceops-idempotency-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("replays a key's answer after the system restarts", async () => {
    const env = testEnv({ DATA_DIR: dataDir });
    const first = await startSystem({ env });
    const k = key();
    const name = `Restart ${randomUUID()}`;
    let tenant: Tenant;
    let created: ApiResponse;
    try {
      tenant = await newTenant(first.url, new AdminClient(first.adminUrl, first.adminToken));
      created = await tenant.owner.request("POST", "/api/contacts", { body: { name }, ...keyed(k) });
      expect(created.status).toBe(201);
    } finally {
      await first.stop();
    }
    const second = await startSystem({ env });
    try {
      const api = new (tenant.owner.constructor as typeof ApiClient)(second.url, tenant.owner.apiKey);
      expectReplay(await api.request("POST", "/api/contacts", { body: { name }, ...keyed(k) }), created);
      expect(await countRows(second, "crm.contacts WHERE org_id = $1 AND name = $2", [tenant.orgId, name])).toBe(1);
    } finally {
      await second.stop();
    }
  });

  it("forgets a key after IDEMPOTENCY_TTL_HOURS and prunes it", async () => {
    // 0.001 hours: 3.6 s.
    const system = await startSystem({ env: testEnv({ IDEMPOTENCY_TTL_HOURS: "0.001" }), inMemory: true });
    try {
      const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
      const k = key();
      const first = await tenant.owner.request("POST", "/api/contacts", {
        body: { name: `Expiring ${randomUUID()}` },
        ...keyed(k),
      });
      expect(first.status).toBe(201);
      expect(
        await countRows(system, `${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1 AND key = $2`, [tenant.orgId, k]),
      ).toBe(1);
      await eventually(
        async () =>
          (await countRows(system, `${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1`, [tenant.orgId])) === 0
            ? true
            : undefined,
        20_000,
        200,
      );
      // Free again: another request with the key runs.
      const second = await tenant.owner.request("POST", "/api/contacts", {
        body: { name: `Expired ${randomUUID()}` },
        ...keyed(k),
      });
      expect(second.status).toBe(201);
      expect(second.headers.get("idempotent-replayed")).toBeNull();
      expect(second.body.id).not.toBe(first.body.id);
    } finally {
      await system.stop();
    }
  });
});
