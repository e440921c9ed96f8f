import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isBlockedAddress } from "@voiceops/platform";
import { chunkDocument } from "../src/knowledge/chunk.js";
import { readKnowledgeConfig } from "../src/knowledge/config.js";
import { IngestionError } from "../src/knowledge/errors.js";
import { documentKind, type Block } from "../src/knowledge/document-kinds.js";
import { extractDocument } from "../src/knowledge/extract.js";
import { fetchUrl, urlProblem, type FetchOptions } from "../src/knowledge/fetch-url.js";
import { ExtractionPool } from "../src/knowledge/isolated-extract.js";
import { editDistance, isPlainQuery, wordsOf } from "../src/store/knowledge-search.js";
import { makeDocx, makePdf } from "./knowledge-files.js";

// The ingestion pipeline piece by piece: which addresses are refused, how a URL is fetched
// (redirects, resolution, limits), how each file type becomes text, and how text is chunked.

describe("address policy", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.5",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.1.2.3",
    "64:ff9b::a9fe:a9fe",
    "2002:c0a8:0101::1",
    "not-an-ip",
  ])("refuses %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows %s",
    (address) => {
      expect(isBlockedAddress(address)).toBe(false);
    },
  );

  it.each([
    ["ftp://example.com/file", "must use http or https"],
    ["file:///etc/passwd", "must use http or https"],
    ["javascript:alert(1)", "must use http or https"],
    ["not a url", "is not a valid URL"],
    ["http://127.0.0.1/", "points to a loopback, private or link-local address"],
    ["http://2130706433/", "points to a loopback, private or link-local address"],
    ["http://0x7f.1/", "points to a loopback, private or link-local address"],
    ["http://[::1]:8080/", "points to a loopback, private or link-local address"],
    ["http://[::ffff:169.254.169.254]/", "points to a loopback, private or link-local address"],
    ["http://localhost:3000/", "points to a loopback, private or link-local address"],
    ["http://api.localhost/", "points to a loopback, private or link-local address"],
  ])("refuses %s before connecting", (url, problem) => {
    expect(urlProblem(url, false)).toBe(problem);
  });

  it("lets private addresses through when they are allowed, but never other schemes", () => {
    expect(urlProblem("http://127.0.0.1/", true)).toBeUndefined();
    expect(urlProblem("http://localhost/", true)).toBeUndefined();
    expect(urlProblem("ftp://127.0.0.1/", true)).toBe("must use http or https");
    expect(urlProblem("https://example.com/prices", false)).toBeUndefined();
  });
});

describe("fetching a URL", () => {
  let server: Server;
  let base: string;
  const big = Buffer.alloc(300_000, "a");

  beforeAll(async () => {
    server = createServer((req, res) => {
      switch (req.url) {
        case "/page":
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end("<html><head><title>Page</title></head><body><p>Hello</p></body></html>");
          return;
        case "/gzip":
          res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
          res.end(gzipSync("compressed text"));
          return;
        case "/redirect":
          res.writeHead(302, { location: "/page" });
          res.end();
          return;
        case "/to-blocked":
          // 127.0.0.2 is loopback too; the narrowed policy of these tests refuses only it.
          res.writeHead(301, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/page` });
          res.end();
          return;
        case "/loop":
          res.writeHead(302, { location: "/loop" });
          res.end();
          return;
        case "/big":
          res.writeHead(200, { "content-type": "text/plain" });
          res.end(big);
          return;
        case "/big-chunked":
          res.writeHead(200, { "content-type": "text/plain" });
          res.write(big.subarray(0, 150_000));
          res.end(big.subarray(150_000));
          return;
        case "/missing":
          res.writeHead(404);
          res.end();
          return;
        case "/unavailable":
          res.writeHead(503);
          res.end();
          return;
        case "/hang":
          return;
        default:
          res.writeHead(500);
          res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const allowLocal: FetchOptions = { allowPrivate: true, timeoutMs: 5_000, maxBytes: 1_000_000 };
  // As the production policy, except that 127.0.0.1 (the test server) counts as public.
  const narrowed: FetchOptions = {
    ...allowLocal,
    allowPrivate: false,
    isBlocked: (address) => address !== "127.0.0.1" && isBlockedAddress(address),
  };

  async function failure(url: string, options: FetchOptions): Promise<IngestionError> {
    const error = await fetchUrl(url, options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IngestionError);
    return error as IngestionError;
  }

  it("fetches a page with its media type and follows redirects", async () => {
    const page = await fetchUrl(`${base}/redirect`, allowLocal);
    expect(page.url).toBe(`${base}/page`);
    expect(page.contentType).toBe("text/html");
    expect(page.body.toString()).toContain("Hello");
  });

  it("decompresses a gzip body", async () => {
    expect((await fetchUrl(`${base}/gzip`, allowLocal)).body.toString()).toBe("compressed text");
  });

  it("refuses a redirect to a refused address", async () => {
    const error = await failure(`${base}/to-blocked`, narrowed);
    expect(error.message).toMatch(
      /redirects to http:\/\/127\.0\.0\.2:\d+\/page, which points to a loopback, private or link-local address/,
    );
    expect(error.transient).toBe(false);
  });

  it("refuses a host name that resolves to a refused address, at connect time", async () => {
    const lookup = ((
      _host: string,
      _options: unknown,
      callback: (error: null, addresses: { address: string; family: number }[]) => void,
    ) => callback(null, [{ address: "10.1.2.3", family: 4 }])) as unknown as FetchOptions["lookup"];
    const error = await failure("http://prices.example.test:1/", { ...narrowed, lookup });
    expect(error.message).toContain("resolves to a loopback, private or link-local address");
    expect(error.transient).toBe(false);
  });

  it("connects to the address the check resolved", async () => {
    const port = (server.address() as AddressInfo).port;
    const lookup = ((
      _host: string,
      _options: unknown,
      callback: (error: null, addresses: { address: string; family: number }[]) => void,
    ) => callback(null, [{ address: "127.0.0.1", family: 4 }])) as unknown as FetchOptions["lookup"];
    const page = await fetchUrl(`http://prices.example.test:${port}/page`, { ...narrowed, lookup });
    expect(page.body.toString()).toContain("Hello");
  });

  it("stops after five redirects", async () => {
    expect((await failure(`${base}/loop`, allowLocal)).message).toBe("the URL redirects more than 5 times");
  });

  it("refuses a body over the size limit, declared or streamed", async () => {
    const small = { ...allowLocal, maxBytes: 200_000 };
    for (const path of ["/big", "/big-chunked"]) {
      const error = await failure(`${base}${path}`, small);
      expect(error.message).toMatch(/larger than/);
      expect(error.transient).toBe(false);
    }
  });

  it("tells a missing page (final) from an unavailable server (worth retrying)", async () => {
    const missing = await failure(`${base}/missing`, allowLocal);
    expect(missing.message).toBe("the URL answered HTTP 404");
    expect(missing.transient).toBe(false);
    const unavailable = await failure(`${base}/unavailable`, allowLocal);
    expect(unavailable.message).toBe("the URL answered HTTP 503");
    expect(unavailable.transient).toBe(true);
  });

  it("gives up on a server that does not answer in time", async () => {
    const error = await failure(`${base}/hang`, { ...allowLocal, timeoutMs: 300 });
    expect(error.message).toBe("the URL did not answer within 0.3 seconds");
    expect(error.transient).toBe(true);
  });

  it("reports a refused connection", async () => {
    const error = await failure("http://127.0.0.1:1/", allowLocal);
    expect(error.message).toBe("the URL could not be fetched: the connection was refused");
    expect(error.transient).toBe(true);
  });
});

/** The limits a service has by default. */
const LIMITS = readKnowledgeConfig({}).extraction.document;

describe("text extraction", () => {
  const text = (blocks: Block[]) => blocks.map((b) => b.text).join("\n");

  it("reads the main content of an HTML page without scripts, styles or navigation", async () => {
    const html = `<!doctype html><html><head><title>Drain Pros | Prices</title><style>.x{color:red}</style><script>var secretToken = 1;</script></head>
      <body><nav><a href="/">Home</a> <a href="/menu">Navigationlink</a></nav>
      <main><h1>Our prices</h1><p>Drain cleaning costs $189 for one access point.</p>
      <h2>Extras</h2><ul><li>Camera inspection: $275</li><li>Hydro jetting: $595</li></ul>
      <table><tr><th>Service</th><th>Price</th></tr><tr><td>Toilet repair</td><td>$165</td></tr></table></main>
      <footer>Footerword</footer></body></html>`;
    const doc = await extractDocument(Buffer.from(html), "html", LIMITS);
    expect(doc.title).toBe("Drain Pros | Prices");
    const all = text(doc.blocks);
    expect(all).toContain("Drain cleaning costs $189 for one access point.");
    expect(all).toContain("- Camera inspection: $275");
    expect(all).toContain("Toilet repair | $165");
    for (const hidden of ["secretToken", "color:red", "Navigationlink", "Footerword"])
      expect(all).not.toContain(hidden);
    expect(doc.blocks.filter((b) => b.kind === "heading").map((b) => b.text)).toEqual(["Our prices", "Extras"]);
  });

  it("reads Markdown headings and joins wrapped lines", async () => {
    const doc = await extractDocument(
      Buffer.from("# Policies\n\nWe accept\ncards and cash.\n\n## Warranty\n- one year\n- parts and labor\n"),
      "markdown",
      LIMITS,
    );
    expect(doc.title).toBe("Policies");
    expect(doc.blocks).toEqual([
      { kind: "heading", level: 1, text: "Policies" },
      { kind: "paragraph", text: "We accept cards and cash." },
      { kind: "heading", level: 2, text: "Warranty" },
      { kind: "paragraph", text: "- one year\n- parts and labor" },
    ]);
  });

  it("reads the text layer of a PDF, page by page, and its title", async () => {
    const pdf = makePdf(
      [["Water heater flush: $159", "Anode rod inspection included"], ["Second page (with parentheses)"]],
      "Maintenance prices",
    );
    const doc = await extractDocument(pdf, "pdf", LIMITS);
    expect(doc.title).toBe("Maintenance prices");
    const all = text(doc.blocks);
    expect(all).toContain("Water heater flush: $159");
    expect(all).toContain("Second page (with parentheses)");
  });

  it("reads a DOCX with its headings", async () => {
    const docx = makeDocx([
      { heading: 1, text: "Service agreement" },
      { text: "Members get priority scheduling." },
      { heading: 2, text: "Renewal" },
      { text: "Renews every year." },
    ]);
    const doc = await extractDocument(docx, "docx", LIMITS);
    expect(doc.title).toBe("Service agreement");
    expect(doc.blocks).toEqual([
      { kind: "heading", level: 1, text: "Service agreement" },
      { kind: "paragraph", text: "Members get priority scheduling." },
      { kind: "heading", level: 2, text: "Renewal" },
      { kind: "paragraph", text: "Renews every year." },
    ]);
  });

  it("refuses documents it cannot read, saying why", async () => {
    await expect(extractDocument(Buffer.from("%PDF-1.4 this is not really a pdf"), "pdf", LIMITS)).rejects.toThrow(
      /the PDF could not be read/,
    );
    await expect(extractDocument(Buffer.from("PK not a zip"), "docx", LIMITS)).rejects.toThrow(
      /the DOCX file could not be read/,
    );
    await expect(extractDocument(makePdf([[]]), "pdf", LIMITS)).rejects.toThrow(
      /no text could be extracted from the PDF/,
    );
    await expect(extractDocument(Buffer.from("  \n\n "), "text", LIMITS)).rejects.toThrow(
      "the document contains no text",
    );
  });

  it("tells the kind of a document from its media type, its name or its bytes", () => {
    const bytes = Buffer.from("plain words");
    expect(documentKind(bytes, "text/html; charset=utf-8", undefined)).toBe("html");
    expect(documentKind(bytes, "text/plain", "notes.md")).toBe("markdown");
    expect(documentKind(bytes, "application/octet-stream", "prices.docx")).toBe("docx");
    expect(documentKind(makePdf([["x"]]), undefined, undefined)).toBe("pdf");
    expect(documentKind(bytes, undefined, undefined)).toBe("text");
    expect(documentKind(bytes, "image/png", "photo.png")).toBeUndefined();
    expect(documentKind(Buffer.from([0, 1, 2, 0]), undefined, undefined)).toBeUndefined();
  });
});

describe("extraction in child processes", () => {
  it("extracts in a child process, stops one that takes too long, and keeps serving", async () => {
    const pdf = makePdf([["Isolated extraction of a tidy little PDF"]], "Tidy");
    const impatient = new ExtractionPool({ timeoutMs: 1, maxMemoryMb: 256, idleMs: 1_000, size: 1, document: LIMITS });
    try {
      await expect(impatient.extract(pdf, "pdf", "application/pdf")).rejects.toThrow(
        "text extraction did not finish within 0.001 seconds",
      );
    } finally {
      await impatient.close();
    }
    const pool = new ExtractionPool({ timeoutMs: 120_000, maxMemoryMb: 256, idleMs: 1_000, size: 1, document: LIMITS });
    try {
      const first = await pool.extract(pdf, "pdf", "application/pdf");
      expect(first).toEqual({
        title: "Tidy",
        blocks: [{ kind: "paragraph", text: "Isolated extraction of a tidy little PDF" }],
      });
      await expect(pool.extract(Buffer.from("%PDF-1.4 broken"), "pdf", "application/pdf")).rejects.toThrow(
        "the PDF could not be read",
      );
      expect((await pool.extract(Buffer.from("# Again\n\nStill serving."), "markdown", undefined)).title).toBe("Again");
    } finally {
      await pool.close();
    }
  });
});

describe("chunking", () => {
  const sentence = (i: number) => `Sentence number ${i} explains one more detail of the service in plain words.`;

  it("keeps each section whole when it fits, with its heading trail", () => {
    const chunks = chunkDocument([
      { kind: "heading", level: 1, text: "Price list" },
      { kind: "heading", level: 2, text: "Drains" },
      { kind: "paragraph", text: Array.from({ length: 4 }, (_, i) => sentence(i)).join(" ") },
      { kind: "heading", level: 2, text: "Water heaters" },
      { kind: "paragraph", text: Array.from({ length: 4 }, (_, i) => sentence(i + 10)).join(" ") },
    ]);
    expect(chunks.map((c) => c.heading)).toEqual(["Price list > Drains", "Price list > Water heaters"]);
    expect(chunks[0]?.content.startsWith("Drains\n\nSentence number 0")).toBe(true);
  });

  it("splits a long section into chunks of at most 1,500 characters that overlap by about 200", () => {
    const paragraphs: Block[] = Array.from({ length: 30 }, (_, i) => ({
      kind: "paragraph",
      text: `${sentence(i)} ${sentence(i + 100)}`,
    }));
    const chunks = chunkDocument([{ kind: "heading", level: 1, text: "Policies" }, ...paragraphs]);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.content.length).toBeLessThanOrEqual(1500);
      expect(chunk.content.startsWith("Policies\n\n")).toBe(true);
    }
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]?.content ?? "";
      const opening = (chunks[i]?.content ?? "").slice("Policies\n\n".length).split("\n\n")[0] ?? "";
      expect(opening.length).toBeGreaterThan(50);
      expect(opening.length).toBeLessThanOrEqual(200);
      expect(previous.endsWith(opening)).toBe(true);
    }
    // Nothing is lost: every sentence is in some chunk.
    for (let i = 0; i < 30; i++) expect(chunks.some((c) => c.content.includes(sentence(i)))).toBe(true);
  });

  it("splits a paragraph longer than a chunk at sentence ends", () => {
    const long = Array.from({ length: 60 }, (_, i) => sentence(i)).join(" ");
    const chunks = chunkDocument([{ kind: "paragraph", text: long }]);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.content.length).toBeLessThanOrEqual(1500);
      expect(chunk.content.trimEnd().endsWith(".")).toBe(true);
    }
  });

  it("groups short sibling sections into one chunk", () => {
    const chunks = chunkDocument([
      { kind: "heading", level: 1, text: "FAQ" },
      { kind: "heading", level: 2, text: "Pets?" },
      { kind: "paragraph", text: "Keep them in another room." },
      { kind: "heading", level: 2, text: "Parking?" },
      { kind: "paragraph", text: "Leave the driveway free." },
    ]);
    expect(chunks).toEqual([
      {
        heading: "FAQ > Pets? > Parking?",
        content: "Pets?\n\nKeep them in another room.\n\nParking?\n\nLeave the driveway free.",
      },
    ]);
  });
});

describe("query helpers", () => {
  it.each([
    ["drain", "drain", 0],
    ["drian", "drain", 1],
    ["tankles", "tankless", 1],
    ["evanstn", "evanston", 1],
    ["comfrot", "comfort", 1],
    ["warrenty", "warranty", 1],
    ["kitten", "sitting", 3],
    ["", "abc", 3],
  ])("counts %s -> %s as %i edits (a swap of neighbours is one)", (a, b, edits) => {
    expect(editDistance(a, b)).toBe(edits);
  });

  it("tells plain queries from websearch syntax", () => {
    expect(isPlainQuery("do you service Oak Park?")).toBe(true);
    expect(isPlainQuery("well-known drain-cleaning prices")).toBe(true);
    expect(isPlainQuery('"battery backup"')).toBe(false);
    expect(isPlainQuery("Schaumburg or Evanston")).toBe(false);
    expect(isPlainQuery("tune-up -furnace")).toBe(false);
  });

  it("splits words as the vocabulary stores them", () => {
    expect(wordsOf("Café owners' 2-hour window, ÉTÉ")).toEqual(["café", "owners", "hour", "window", "été"]);
  });
});
