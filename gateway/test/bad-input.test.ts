import net from "node:net";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { expectStatus, locs, testAdmin, tenantFactory, type Tenant } from "@voiceops/platform/testing";

// Input that used to reach PostgreSQL or a recursive function and come back as a 500: each is
// a 4xx in the documented shape, naming the field where there is one.

const baseUrl = inject("baseUrl");
const tenant = tenantFactory();

/** Sends raw bytes over one connection and returns what came back. */
function rawRequest(text: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let answer = "";
    socket.setTimeout(30_000, () => socket.destroy(new Error("no answer")));
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("end", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

function jsonBodyOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
}

describe("bad input is a 4xx, never a 500", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("NUL in a body string: 422 naming the field, nothing written", async () => {
    const res = await t.owner.post("/api/contacts", { name: "Nul\u0000Name", notes: "fine", tags: ["ok", "t\u0000g"] });
    expectStatus(res, 422);
    expect(locs(res.body)).toEqual([
      ["body", "name"],
      ["body", "tags", 1],
    ]);
    expect(res.body.detail[0].type).toBe("value_error");
    expect((await t.owner.get("/api/contacts?search=Nul")).body.total).toBe(0);
  });

  it("NUL in a search or query parameter: 422 naming it", async () => {
    for (const [path, loc] of [
      ["/api/contacts?search=a%00b", ["query", "search"]],
      ["/api/contacts/search?q=%00", ["query", "q"]],
      ["/api/contacts/search-by-email?email=a%00b%40example.com", ["query", "email"]],
      ["/api/leads?search=%00", ["query", "search"]],
      ["/api/service-requests?search=x%00", ["query", "search"]],
    ] as const) {
      const res = await t.owner.get(path);
      expectStatus(res, 422);
      expect(locs(res.body), path).toEqual([loc]);
    }
  });

  it("NUL in a path parameter: 422 naming it", async () => {
    const res = await t.owner.get("/api/contacts/%00");
    expectStatus(res, 422);
    expect(locs(res.body)).toEqual([["path", "contact_id"]]);
  });

  it("NUL on the admin API: 422 naming the field", async () => {
    const admin = testAdmin();
    const created = await admin.request("POST", "/admin/organizations", { name: "Nul\u0000Org" });
    expect(created.status).toBe(422);
    expect(created.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([["body", "name"]]);
    const found = await admin.request("GET", "/admin/organizations?name=a%00b");
    expect(found.status).toBe(422);
    expect(found.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([["query", "name"]]);
  });

  it("JSON nested 5,000 deep: 422 json_invalid", async () => {
    const deep = `${'{"a":['.repeat(2_500)}1${"]}".repeat(2_500)}`;
    for (const body of [
      deep,
      `{"name":"Deep","notes":${deep}}`,
      `{"name":"Deep","tags":${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
    ]) {
      const res = await t.owner.request("POST", "/api/contacts", { rawBody: body });
      expectStatus(res, 422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    }
  });

  it("bad percent-encoding in a path: 422 on the path", async () => {
    for (const path of [
      "/api/contacts/%ZZ",
      "/api/contacts/%E0%A4%A",
      "/api/contacts/%C3%28",
      "/api/leads/%ED%A0%80",
    ]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await t.owner.request(method, path, method === "PUT" ? { body: { name: "x" } } : {});
        expectStatus(res, 422);
        expect(res.body.detail[0].loc[0], `${method} ${path}`).toBe("path");
      }
    }
  });

  it("a body that does not decode with its Content-Encoding: 422; a good gzip body works", async () => {
    for (const encoding of ["gzip", "deflate", "br"]) {
      const res = await t.owner.request("POST", "/api/contacts", {
        rawBody: "definitely not compressed",
        headers: { "content-encoding": encoding },
      });
      expectStatus(res, 422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    }
    const unknown = await t.owner.request("POST", "/api/contacts", {
      rawBody: "{}",
      headers: { "content-encoding": "zstd-ish" },
    });
    expectStatus(unknown, 415);
    const ok = await fetch(`${baseUrl}/api/contacts`, {
      method: "POST",
      headers: {
        "x-api-key": t.owner.apiKey as string,
        "content-type": "application/json",
        "content-encoding": "gzip",
      },
      body: gzipSync(JSON.stringify({ name: "Zipped Contact" })),
    });
    expect(ok.status).toBe(201);
  });

  it("timestamps outside the years 0001..9999: 422 naming the field", async () => {
    for (const stamp of ["0000-12-31T23:59:59Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-01:00"]) {
      const res = await t.owner.post("/api/leads", { name: "Far Future", next_step_due_at: stamp });
      expectStatus(res, 422);
      expect(locs(res.body)).toEqual([["body", "next_step_due_at"]]);
    }
    for (const stamp of ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]) {
      const res = await t.owner.post("/api/leads", { name: "Edge Of Time", next_step_due_at: stamp });
      expectStatus(res, 201);
      expect(res.body.next_step_due_at).toBe(new Date(stamp).toISOString());
    }
  });

  it("Node's own answers to unparsable requests are JSON: 400 and 431", async () => {
    const bad = await rawRequest("GARBAGE / HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad).toMatch(/content-type: application\/json/i);
    expect(jsonBodyOf(bad)).toEqual({ detail: "Bad request" });

    const big = await rawRequest(`GET /api/contacts HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBodyOf(big)).toEqual({ detail: "Request header fields too large" });

    const longUrl = await rawRequest(`GET /api/contacts?search=${"x".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(longUrl).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBodyOf(longUrl)).toEqual({ detail: "Request header fields too large" });
  });
});
