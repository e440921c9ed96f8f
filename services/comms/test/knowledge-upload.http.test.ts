import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  tenantFactory,
  UUID_PATTERN,
  type ApiClient,
  type ApiResponse,
} from "@voiceops/platform/testing";
import { search, settled, SOURCE_KEYS, SOURCES, type Source } from "./knowledge-helpers.js";
import { makeDocx, makePdf } from "./knowledge-files.js";

// File uploads (multipart/form-data) to the knowledge base: every supported type is stored,
// ingested and searchable; wrong types, oversized files and malformed forms are refused.

const tenant = tenantFactory();
const UPLOAD = `${SOURCES}/upload`;
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const fixture = (name: string) => readFileSync(new URL(`./fixtures/knowledge/${name}`, import.meta.url));

async function upload(
  client: ApiClient,
  file: { bytes: Buffer; type: string; name: string } | undefined,
  fields: Record<string, string> = {},
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append("file", new Blob([file.bytes], { type: file.type }), file.name);
  return client.upload("POST", UPLOAD, form);
}

describe("POST /api/knowledge-base/sources/upload", () => {
  it.each([
    [
      "prices.txt",
      "text/plain",
      Buffer.from("Winter special\n\nFurnace check with a free carbon monoxide test: $99."),
      "text/plain",
      "prices.txt",
      "carbon monoxide test",
      "free carbon monoxide test",
    ],
    [
      "faq.md",
      "text/markdown",
      fixture("policies-faq.md"),
      "text/markdown",
      "Policies and Frequently Asked Questions",
      "cancellation policy",
      "late cancellation fee",
    ],
    [
      "notes.md",
      "text/plain",
      Buffer.from("# Shop notes\n\nThe loading dock closes at 4 pm."),
      "text/markdown",
      "Shop notes",
      "loading dock",
      "loading dock closes at 4 pm",
    ],
    [
      "area.html",
      "text/html",
      fixture("service-area.html"),
      "text/html",
      "Service Area | Northside Plumbing & Heating",
      "Highland Park",
      "Deerfield and Waukegan",
    ],
    [
      "sheet.pdf",
      "application/pdf",
      makePdf([["Backflow preventer testing: $120 per device"]], "Backflow price sheet"),
      "application/pdf",
      "Backflow price sheet",
      "backflow testing",
      "Backflow preventer testing: $120",
    ],
    [
      "scan.pdf",
      "application/octet-stream",
      makePdf([["Hydronic balancing visit: $210"]]),
      "application/pdf",
      "scan.pdf",
      "hydronic balancing",
      "Hydronic balancing visit: $210",
    ],
    [
      "terms.docx",
      DOCX,
      makeDocx([{ heading: 1, text: "Terms of service" }, { text: "Invoices are due within 15 days of completion." }]),
      DOCX,
      "Terms of service",
      "invoices due",
      "Invoices are due within 15 days",
    ],
  ])("stores and ingests %s sent as %s", async (name, type, bytes, contentType, title, query, answer) => {
    const t = await tenant();
    const res = await upload(t.owner, { bytes, type, name });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SOURCE_KEYS);
    expect(res.body).toMatchObject({
      type: "file",
      title: null,
      url: null,
      filename: name,
      content_type: contentType,
      status: "processing",
      bytes: bytes.length,
      chunk_count: 0,
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);
    const source = await settled(t.owner, res.body.id);
    expect(source, source.error ?? "").toMatchObject({
      status: "ready",
      title,
      filename: name,
      content_type: contentType,
      bytes: bytes.length,
    });
    expect(source.chunk_count).toBeGreaterThan(0);
    const found = await search(t.owner, { query });
    expect(found.results[0]?.content).toContain(answer);
    expect(found.results[0]?.source_id).toBe(source.id);
  });

  it("keeps the title of the form", async () => {
    const t = await tenant();
    const res = await upload(
      t.owner,
      {
        bytes: makePdf([["Gutter guard install: $8 per foot"]], "Ignored title"),
        type: "application/pdf",
        name: "g.pdf",
      },
      { title: "Gutter prices" },
    );
    expect(res.status).toBe(201);
    expect(res.body.title).toBe("Gutter prices");
    expect((await settled(t.owner, res.body.id)).title).toBe("Gutter prices");
  });

  it("ends an unreadable file in error with the reason", async () => {
    const t = await tenant();
    const res = await upload(t.owner, {
      bytes: Buffer.from("%PDF-1.7 nothing more"),
      type: "application/pdf",
      name: "broken.pdf",
    });
    expect(res.status).toBe(201);
    const source = await settled(t.owner, res.body.id);
    expect(source.status).toBe("error");
    expect(source.error).toContain("the PDF could not be read");
  });

  it("answers 415 for other file types and for a body that is not a form", async () => {
    const t = await tenant();
    expectDetail(
      await upload(t.owner, { bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]), type: "image/png", name: "logo.png" }),
      415,
    );
    expectDetail(await upload(t.owner, { bytes: Buffer.from("a,b\n1,2"), type: "text/csv", name: "list.csv" }), 415);
    expectDetail(await t.owner.post(UPLOAD, { file: "prices.txt" }), 415);
    expect(expectStatus(await t.owner.get(SOURCES), 200).total).toBe(0);
  });

  it("answers 413 for a file over 20 MB and stores nothing", async () => {
    const t = await tenant();
    const big = Buffer.alloc(20 * 1024 * 1024 + 1, "a");
    expectDetail(await upload(t.owner, { bytes: big, type: "text/plain", name: "big.txt" }), 413);
    expect(expectStatus(await t.owner.get(SOURCES), 200).total).toBe(0);
  });

  it("answers 422 for a form without its file or with a bad title", async () => {
    const t = await tenant();
    expect422(await upload(t.owner, undefined, { title: "No file" }), [{ loc: ["body", "file"] }]);
    expect422(
      await upload(
        t.owner,
        { bytes: Buffer.from("text"), type: "text/plain", name: "a.txt" },
        { title: "x".repeat(501) },
      ),
      [{ loc: ["body", "title"], type: "string_too_long" }],
    );
    expect(expectStatus(await t.owner.get(SOURCES), 200).total).toBe(0);
  });

  it("keeps uploads to their organization", async () => {
    const a = await tenant();
    const b = await tenant();
    const res = await upload(a.owner, {
      bytes: Buffer.from("Secret rate card: sewer rodding $210."),
      type: "text/plain",
      name: "rates.txt",
    });
    const source: Source = await settled(a.owner, res.body.id);
    expect(source.status).toBe("ready");
    expectDetail(await b.owner.get(`${SOURCES}/${source.id}`), 404);
    expect((await search(b.owner, { query: "sewer rodding" })).results).toEqual([]);
    expect((await b.owner.get(SOURCES)).body.total).toBe(0);
  });

  it("needs a key", async () => {
    const t = await tenant();
    expectDetail(
      await upload(new (t.owner.constructor as typeof ApiClient)(t.owner.baseUrl, undefined), {
        bytes: Buffer.from("x"),
        type: "text/plain",
        name: "a.txt",
      }),
      401,
    );
  });
});
