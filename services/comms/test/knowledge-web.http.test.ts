import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdminClient,
  expectDetail,
  expectStatus,
  isolatedDatabase,
  newTenant,
  testEnv,
  type ApiClient,
} from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { createSource, search, settled, SOURCES, type Source } from "./knowledge-helpers.js";
import { makeDocx, makePdf } from "./knowledge-files.js";

// URL sources against a local web server. Loopback addresses are refused by default, so these
// tests run a system of their own with KB_ALLOW_PRIVATE_URLS=true (the refusal itself is tested
// on the shared system in knowledge.http.test.ts) and two attempts per source, on a database of
// its own in distributed mode. Held requests ("gates") stay open until the test releases them,
// well within the 10-second fetch limit.

const fixture = (name: string) => readFileSync(new URL(`./fixtures/knowledge/${name}`, import.meta.url), "utf8");
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Requests held open until the test releases them. */
const gates = new Map<string, { release: () => void; opened: Promise<void>; open: () => void }>();
function gate(name: string) {
  let release = () => {};
  let open = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  const entry = { release, opened, open, released };
  gates.set(name, entry);
  return entry as typeof entry & { released: Promise<void> };
}

const requests = new Map<string, number>();

function serve(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  requests.set(path, (requests.get(path) ?? 0) + 1);
  const send = (type: string, body: string | Buffer) => {
    res.writeHead(200, { "content-type": type });
    res.end(body);
  };
  if (path.startsWith("/gate/")) {
    const entry = gates.get(path.slice("/gate/".length)) as
      | (ReturnType<typeof gate> & { released: Promise<void> })
      | undefined;
    if (!entry) return void res.writeHead(404).end();
    entry.open();
    void entry.released.then(() =>
      send("text/plain", `Gated document ${path.slice(6)}: the zebrawood cabinet refinishing special is $300.`),
    );
    return;
  }
  switch (path) {
    case "/service-area.html":
      return send("text/html; charset=utf-8", fixture("service-area.html"));
    case "/notes.txt":
      return send(
        "text/plain; charset=utf-8",
        "Office notes\n\nThe spare key is with the neighbour at number 12.\nParking is behind the bakery.",
      );
    case "/faq.md":
      return send(
        "text/markdown",
        "# Quick FAQ\n\n## Parking\n\nUse the alley entrance, the quokka mural marks our door.\n",
      );
    case "/prices.pdf":
      return send(
        "application/pdf",
        makePdf(
          [["Maintenance price sheet", "Boiler descaling service: $240"], ["Radiator bleeding visit: $95"]],
          "Maintenance prices",
        ),
      );
    case "/download":
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-disposition": 'attachment; filename="x.pdf"',
      });
      return void res.end(makePdf([["Octet stream document about the marmalade sink special"]]));
    case "/agreement.docx":
      return send(
        DOCX,
        makeDocx([
          { heading: 1, text: "Service agreement" },
          { text: "Members receive a complimentary gizmo inspection every spring." },
        ]),
      );
    case "/moved":
      res.writeHead(301, { location: "/notes.txt" });
      return void res.end();
    case "/missing":
      return void res.writeHead(404).end();
    case "/unavailable":
      return void res.writeHead(503).end();
    case "/photo.png":
      return send("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    case "/huge.txt":
      return send("text/plain", Buffer.alloc(6 * 1024 * 1024, "word "));
    case "/broken.pdf":
      return send("application/pdf", Buffer.from("%PDF-1.7\nthis is not a real PDF at all"));
    case "/empty.html":
      return send("text/html", "<html><body><script>var only = 'code';</script></body></html>");
    case "/hang":
      return;
    default:
      res.writeHead(500).end();
  }
}

describe("URL sources (private addresses allowed)", () => {
  let server: Server;
  let base: string;
  let system: RunningSystem;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let client: ApiClient;
  let otherOrg: ApiClient;

  beforeAll(async () => {
    server = createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const env: Record<string, string> = {
      KB_ALLOW_PRIVATE_URLS: "true",
      KB_INGEST_MAX_ATTEMPTS: "2",
      RATE_LIMIT_PER_MINUTE: "1000000",
    };
    if (process.env.DATABASE_URL) {
      database = await isolatedDatabase(process.env.DATABASE_URL);
      env.DATABASE_URL = database.url;
    }
    system = await startSystem({ env: testEnv(env), inMemory: true });
    const admin = new AdminClient(system.adminUrl, system.adminToken);
    client = (await newTenant(system.url, admin)).owner;
    otherOrg = (await newTenant(system.url, admin)).owner;
  });

  afterAll(async () => {
    for (const entry of gates.values()) entry.release();
    await system?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await database?.drop();
  });

  async function ingestUrl(path: string, title?: string): Promise<Source> {
    const created = await createSource(client, { type: "url", url: `${base}${path}`, ...(title ? { title } : {}) });
    expect(created).toMatchObject({
      type: "url",
      url: `${base}${path}`,
      status: "processing",
      title: title ?? null,
      bytes: null,
      content_type: null,
    });
    return settled(client, created.id);
  }

  it.each([
    [
      "/service-area.html",
      "text/html",
      "Service Area | Northside Plumbing & Heating",
      "Highland Park",
      "Deerfield and Waukegan",
    ],
    [
      "/notes.txt",
      "text/plain",
      `127.0.0.1:PORT/notes.txt`,
      "spare key neighbour",
      "The spare key is with the neighbour",
    ],
    ["/faq.md", "text/markdown", "Quick FAQ", "quokka mural", "the quokka mural marks our door"],
    ["/prices.pdf", "application/pdf", "Maintenance prices", "boiler descaling", "Boiler descaling service: $240"],
    ["/download", "application/pdf", "127.0.0.1:PORT/download", "marmalade sink", "marmalade sink special"],
    ["/agreement.docx", DOCX, "Service agreement", "gizmo inspection", "complimentary gizmo inspection"],
  ])("ingests %s (%s), titled from the document", async (path, contentType, title, query, answer) => {
    const source = await ingestUrl(path);
    expect(source, source.error ?? "").toMatchObject({
      status: "ready",
      error: null,
      content_type: contentType,
      title: title.replace("PORT", base.split(":")[2] ?? ""),
    });
    expect(source.chunk_count).toBeGreaterThan(0);
    expect(source.bytes).toBeGreaterThan(0);
    const found = await search(client, { query, source_ids: [source.id] });
    expect(found.results[0]?.content).toContain(answer);
    expect(found.results[0]?.source_title).toBe(source.title);
  });

  it("keeps a title the client gave, and indexes the page's main text only", async () => {
    const source = await ingestUrl("/service-area.html", "Where we go");
    expect(source).toMatchObject({ status: "ready", title: "Where we go" });
    // Navigation, scripts and the footer are not part of the page's text.
    for (const query of ["dataLayer", "Careers", "Privacy"]) {
      expect((await search(client, { query, source_ids: [source.id] })).results).toEqual([]);
    }
    expect((await search(client, { query: "Oak Park", source_ids: [source.id] })).results.length).toBeGreaterThan(0);
  });

  it("follows redirects and keeps the URL the client gave", async () => {
    const source = await ingestUrl("/moved");
    expect(source).toMatchObject({ status: "ready", url: `${base}/moved`, content_type: "text/plain" });
  });

  it.each([
    ["/missing", "the URL answered HTTP 404"],
    ["/photo.png", "the URL answered an unsupported content type (image/png)"],
    ["/huge.txt", "the document is larger than 5 MB"],
    ["/broken.pdf", "the PDF could not be read"],
    ["/empty.html", "the document contains no text"],
    ["/unavailable", "the URL answered HTTP 503 (gave up after 2 attempts)"],
    ["/hang", "the URL did not answer within 10 seconds (gave up after 2 attempts)"],
  ])("ends %s in error with the reason", async (path, reason) => {
    const source = await ingestUrl(path);
    expect(source.status).toBe("error");
    expect(source.error).toContain(reason);
    expect(source.chunk_count).toBe(0);
    expect(
      expectStatus(await client.get(`${SOURCES}?status=error&search=${encodeURIComponent(path)}`), 200).items.map(
        (s: Source) => s.id,
      ),
    ).toContain(source.id);
  });

  it("searches only ready sources: a source still being fetched is not found until it is ready", async () => {
    const held = gate("ready-check");
    const created = await createSource(client, { type: "url", url: `${base}/gate/ready-check` });
    await held.opened;
    expect(expectStatus(await client.get<Source>(`${SOURCES}/${created.id}`), 200).status).toBe("processing");
    expect((await search(client, { query: "zebrawood cabinet" })).results).toEqual([]);
    held.release();
    expect((await settled(client, created.id)).status).toBe("ready");
    const found = await search(client, { query: "zebrawood cabinet" });
    expect(found.results.map((r) => r.source_id)).toEqual([created.id]);
    expect((await search(otherOrg, { query: "zebrawood cabinet" })).results).toEqual([]);
  });

  it("a stuck or failing document never blocks the others", async () => {
    const held = gate("slow");
    const stuck = await createSource(client, { type: "url", url: `${base}/gate/slow` });
    const failing = await createSource(client, { type: "url", url: `${base}/broken.pdf` });
    await held.opened;
    const later = await createSource(client, {
      type: "text",
      title: "Later",
      text: "Created after the stuck one, the xylograph policy applies.",
    });
    expect((await settled(client, failing.id)).status).toBe("error");
    expect((await settled(client, later.id)).status).toBe("ready");
    expect(expectStatus(await client.get<Source>(`${SOURCES}/${stuck.id}`), 200).status).toBe("processing");
    held.release();
    expect((await settled(client, stuck.id)).status).toBe("ready");
  });

  it("drops the ingestion of a source deleted while it is fetched", async () => {
    const held = gate("deleted");
    const created = await createSource(client, { type: "url", url: `${base}/gate/deleted` });
    await held.opened;
    expect((await client.delete(`${SOURCES}/${created.id}`)).status).toBe(204);
    held.release();
    // The fetch finishes, finds the source gone and stores nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expectDetail(await client.get(`${SOURCES}/${created.id}`), 404);
    expect(
      (await search(client, { query: "Gated document deleted" })).results.filter((r) => r.source_id === created.id),
    ).toEqual([]);
  });
});
