import { describe, expect, inject, it } from "vitest";
import {
  canWatchMemory,
  expectStatus,
  tenantFactory,
  watchMemory,
  type ApiClient,
  type ApiResponse,
} from "@voiceops/platform/testing";
import {
  docxBomb,
  docxManyParts,
  htmlDeep,
  htmlWide,
  MB,
  pdfBomb,
  pdfDoubleFlate,
  pdfObjectStreamBomb,
} from "./knowledge-bombs.js";
import { makePdf } from "./knowledge-files.js";
import { settled, SOURCES, type Source } from "./knowledge-helpers.js";

// Hostile documents uploaded over HTTP to the shared test system: small files that inflate to
// gigabytes or parse into enormous trees. Each must end in error with its reason, at once (not
// retried), while the serving process's memory grows by less than 300 MB and other routes keep
// answering; the extraction process is held to its own cap (KB_EXTRACT_MEMORY_MB, 256 MB).

const tenant = tenantFactory();
const UPLOAD = `${SOURCES}/upload`;
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const TOO_LARGE = "the document is larger than 40 MB when decompressed";
/** What the serving process may grow by while it handles the bombs. */
const MAX_GROWTH = 300 * MB;
/** What one extraction process may reach: its cap, and what it can grow by between two reads. */
const MAX_CHILD = 256 * MB + 64 * MB;

async function upload(client: ApiClient, bytes: Buffer, type: string, name: string): Promise<ApiResponse> {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type }), name);
  return client.upload("POST", UPLOAD, form);
}

const BOMBS: [string, () => Buffer, string, string, string][] = [
  ["a DOCX whose document.xml inflates to 1.5 GB", () => docxBomb(1500), DOCX, "bomb.docx", TOO_LARGE],
  [
    "a DOCX whose zip directory understates a 1 GB part",
    () => docxBomb(1000, 4096),
    DOCX,
    "liar.docx",
    "the DOCX file is damaged: one of its parts is larger than the archive says",
  ],
  [
    "a DOCX of 200 parts of 8 MB each",
    () => docxManyParts(200, 8),
    DOCX,
    "parts.docx",
    "the document is compressed more than 100 times over (a decompression bomb)",
  ],
  ["a PDF with one stream that inflates to 1 GB", () => pdfBomb(1, 1000), "application/pdf", "bomb.pdf", TOO_LARGE],
  ["a PDF of 400 small streams of 2 MB each", () => pdfBomb(400, 2), "application/pdf", "streams.pdf", TOO_LARGE],
  [
    "a PDF of 3,000 pages sharing one 4 MB stream",
    () => pdfBomb(3000, 4, true),
    "application/pdf",
    "shared.pdf",
    TOO_LARGE,
  ],
  [
    "a PDF whose object stream inflates to 1 GB",
    () => pdfObjectStreamBomb(1000),
    "application/pdf",
    "objstm.pdf",
    TOO_LARGE,
  ],
  [
    "a PDF stream deflated twice that inflates to 1 GB",
    () => pdfDoubleFlate(1000),
    "application/pdf",
    "double.pdf",
    TOO_LARGE,
  ],
  [
    "an HTML page nested 200,000 levels deep",
    () => htmlDeep(200_000),
    "text/html",
    "deep.html",
    "the page nests HTML elements more than 500 levels deep",
  ],
  [
    "an HTML page of 2,000,000 elements",
    () => htmlWide(2_000_000),
    "text/html",
    "wide.html",
    "the page has more than 40,000 HTML elements",
  ],
];

describe("hostile documents", () => {
  it("end in error with their reason, without retries, and the server's memory stays bounded", async () => {
    const t = await tenant();
    const pid = inject("serverPid");
    const watching = canWatchMemory(pid);
    const watch = watchMemory(pid);
    const ids: string[] = [];
    for (const [, make, type, name] of BOMBS) {
      const res = await upload(t.owner, make(), type, name);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.id);
      // Other routes answer while the bombs are handled.
      expectStatus(await t.owner.get(SOURCES), 200);
    }
    const sources: Source[] = [];
    for (const id of ids) sources.push(await settled(t.owner, id, 120_000));
    // A readable document after them is ingested as usual.
    const after = await upload(
      t.owner,
      makePdf([["Sump pump replacement: $640 installed"]]),
      "application/pdf",
      "fine.pdf",
    );
    const fine = await settled(t.owner, after.body.id);
    const peaks = watch.stop();
    if (process.env.SHOW_MEMORY) process.stdout.write(`memory: ${JSON.stringify(peaks)}\n`);

    BOMBS.forEach(([what, , , , reason], i) => {
      const source = sources[i] as Source;
      expect(source.status, what).toBe("error");
      // A final failure keeps its reason alone: no "(gave up after 3 attempts)".
      expect(source.error, what).toBe(reason);
    });
    expect(fine, fine.error ?? "").toMatchObject({ status: "ready" });
    if (watching) {
      expect(
        peaks.peak - peaks.baseline,
        `the serving process grew from ${peaks.baseline} to ${peaks.peak} bytes`,
      ).toBeLessThan(MAX_GROWTH);
      expect(peaks.childPeak, "peak of an extraction process").toBeLessThan(MAX_CHILD);
    }
  });
});

/** A multipart body of one part named `name` (a file when `filename` is given) that is `mb` megabytes long, streamed without a length. */
function streamedForm(boundary: string, name: string, mb: number, filename?: string): ReadableStream<Uint8Array> {
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: text/plain` : ""}\r\n\r\n`;
  const chunk = new Uint8Array(MB).fill(0x61);
  let sent = -1;
  return new ReadableStream({
    pull(controller) {
      if (sent < 0) controller.enqueue(new TextEncoder().encode(head));
      else if (sent < mb) controller.enqueue(chunk);
      else {
        controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
        controller.close();
      }
      sent++;
    },
  });
}

describe("hostile multipart bodies", () => {
  it("refuses a 100 MB part sent without a length with 413, as a field or as the file, with memory bounded", async () => {
    const t = await tenant();
    const pid = inject("serverPid");
    const watching = canWatchMemory(pid);
    const watch = watchMemory(pid);
    const boundary = "hostile-boundary-7MA4YWxkTrZu0gW";
    const type = `multipart/form-data; boundary=${boundary}`;
    const field = await t.owner.upload("POST", UPLOAD, streamedForm(boundary, "title", 100), type);
    const file = await t.owner.upload("POST", UPLOAD, streamedForm(boundary, "file", 100, "huge.txt"), type);
    const peaks = watch.stop();
    expect(field.status, JSON.stringify(field.body)).toBe(413);
    expect(file.status, JSON.stringify(file.body)).toBe(413);
    expect(expectStatus(await t.owner.get(SOURCES), 200).total).toBe(0);
    if (watching)
      expect(
        peaks.peak - peaks.baseline,
        `the serving process grew from ${peaks.baseline} to ${peaks.peak} bytes`,
      ).toBeLessThan(MAX_GROWTH);
  });
});
