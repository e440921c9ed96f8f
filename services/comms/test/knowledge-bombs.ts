import { constants, crc32 as zlibCrc32, deflateRawSync } from "node:zlib";
import { type DocxParagraph, docxParts, zipOf, type ZipEntry, crc32 } from "./knowledge-files.js";

// Hostile documents made on the spot: small files that expand enormously when decompressed or
// parsed. Nothing large is ever held here: a deflate stream of a repeated segment is the
// segment's compressed blocks repeated (each segment ends with a full flush, so its blocks
// never refer back to the one before).

export const MB = 1024 * 1024;

/** One megabyte of Word paragraphs, the unit the bombs repeat. */
const SEGMENT = Buffer.from("<w:p><w:r><w:t>bomb </w:t></w:r></w:p>".repeat(Math.ceil(MB / 38)).slice(0, MB), "latin1");

/** Raw deflate of `segment` repeated `times` times, and the CRC-32 of what it inflates to. */
export function repeatedDeflate(segment: Buffer, times: number): { data: Buffer; crc: number; size: number } {
  const block = deflateRawSync(segment, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const last = deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < times; i++) crc = zlibCrc32(segment, crc);
  return {
    data: Buffer.concat([...Array.from({ length: times }, () => block), last]),
    crc,
    size: segment.length * times,
  };
}

/** Zlib framing (as PDF's FlateDecode wants) around a raw deflate stream; the checksum is left zero. */
function zlibWrapped(raw: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x78, 0xda]), raw, Buffer.alloc(4)]);
}

/** The parts of a readable DOCX as zip entries, deflated. */
function docxEntries(paragraphs: DocxParagraph[]): ZipEntry[] {
  return Object.entries(docxParts(paragraphs)).map(([name, text]) => {
    const data = Buffer.from(text, "utf8");
    return { name, data: deflateRawSync(data), deflated: true, crc: crc32(data), size: data.length };
  });
}

/**
 * A DOCX whose word/document.xml inflates to `inflatedMb` megabytes. `declaredBytes` is the
 * size its zip directory claims (the true one unless given: a lying archive).
 */
export function docxBomb(inflatedMb: number, declaredBytes?: number): Buffer {
  const bomb = repeatedDeflate(SEGMENT, inflatedMb);
  const entries = docxEntries([{ text: "cover" }]).map((entry) =>
    entry.name === "word/document.xml"
      ? {
          name: entry.name,
          data: bomb.data,
          deflated: true,
          crc: bomb.crc,
          size: declaredBytes ?? Math.min(bomb.size, 0xffffffff),
        }
      : entry,
  );
  return zipOf(entries);
}

/** A DOCX with `count` extra parts, each inflating to `eachMb` megabytes (none alone is large). */
export function docxManyParts(count: number, eachMb: number): Buffer {
  const part = repeatedDeflate(SEGMENT, eachMb);
  const extra = Array.from({ length: count }, (_, i) => ({
    name: `word/media/part${i}.xml`,
    data: part.data,
    deflated: true,
    crc: part.crc,
    size: part.size,
  }));
  return zipOf([...docxEntries([{ text: "A readable cover page." }]), ...extra]);
}

/** A DOCX holding a zip bomb as one of its parts, stored (a zip inside the zip). */
export function docxNestedZip(innerMb: number): Buffer {
  const inner = docxBomb(innerMb);
  return zipOf([
    ...docxEntries([{ text: "Nested archive ahead." }]),
    { name: "word/embeddings/package.zip", data: inner, deflated: false, crc: crc32(inner), size: inner.length },
  ]);
}

/** A PDF of the given objects (index = object id, from 1), with a cross-reference table. */
function pdfOf(objects: (string | Buffer)[], root: number): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let size = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = size;
    const body = objects[id] ?? "null";
    const part = Buffer.concat([
      Buffer.from(`${id} 0 obj\n`, "latin1"),
      typeof body === "string" ? Buffer.from(body, "latin1") : body,
      Buffer.from("\nendobj\n", "latin1"),
    ]);
    parts.push(part);
    size += part.length;
  }
  let tail = `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) tail += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length} /Root ${root} 0 R >>\nstartxref\n${size}\n%%EOF\n`;
  parts.push(Buffer.from(tail, "latin1"));
  return Buffer.concat(parts);
}

function streamObject(dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, "latin1"),
    data,
    Buffer.from("\nendstream", "latin1"),
  ]);
}

/** Page content that draws nothing, a megabyte of it: what the bomb streams inflate to. */
const CONTENT_SEGMENT = Buffer.from("0 0 m\n".repeat(Math.ceil(MB / 6)).slice(0, MB), "latin1");

/** A PDF of `pages` pages, each with a content stream that inflates to `eachMb` megabytes (all pages may share one stream). */
export function pdfBomb(pages: number, eachMb: number, shared = false): Buffer {
  const stream = zlibWrapped(repeatedDeflate(CONTENT_SEGMENT, eachMb).data);
  const objects: (string | Buffer)[] = [];
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  const pageIds = Array.from({ length: pages }, (_, i) => 3 + i * 2);
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages} >>`;
  for (const id of pageIds) {
    const contents = shared ? 4 : id + 1;
    objects[id] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${contents} 0 R >>`;
    if (!shared || id === 3) objects[id + 1] = streamObject("/Filter /FlateDecode", stream);
  }
  return pdfOf(objects, 1);
}

/** A PDF whose one object stream (/Type /ObjStm) inflates to `inflatedMb` megabytes. */
export function pdfObjectStreamBomb(inflatedMb: number): Buffer {
  const stream = zlibWrapped(repeatedDeflate(Buffer.from(" ".repeat(MB)), inflatedMb).data);
  const objects: (string | Buffer)[] = [];
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>";
  objects[3] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>";
  objects[4] = streamObject("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", stream);
  return pdfOf(objects, 1);
}

/** A PDF whose content stream goes through FlateDecode twice: a small outer stream, an enormous inner one. */
export function pdfDoubleFlate(inflatedMb: number): Buffer {
  const inner = zlibWrapped(repeatedDeflate(CONTENT_SEGMENT, inflatedMb).data);
  const outer = zlibWrapped(deflateRawSync(inner, { level: 9 }));
  const objects: (string | Buffer)[] = [];
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>";
  objects[3] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>";
  objects[4] = streamObject("/Filter [/FlateDecode /FlateDecode]", outer);
  return pdfOf(objects, 1);
}

/** An HTML page whose elements nest `depth` levels deep. */
export function htmlDeep(depth: number): Buffer {
  return Buffer.from(
    `<!doctype html><html><body>${"<div>".repeat(depth)}deep text${"</div>".repeat(depth)}</body></html>`,
  );
}

/** An HTML page of `count` paragraphs. */
export function htmlWide(count: number): Buffer {
  return Buffer.from(`<!doctype html><html><body>${"<p>w</p>".repeat(count)}</body></html>`);
}

/** An HTML page with one attribute value of `mb` megabytes, and no text. */
export function htmlHugeAttribute(mb: number): Buffer {
  return Buffer.from(`<!doctype html><html><body><div title="${"a".repeat(mb * MB)}"></div></body></html>`);
}
