import { type DocumentLimits, tooLargeDecompressed } from "./document-limits.js";
import { type Decoded, inflateBounded, lzwBounded, runLengthBounded } from "./pdf-filters.js";

// PDF.js inflates a stream whole, into one growing buffer, when a page needs it; a 4 MB file can
// hold a stream that inflates to gigabytes. Before PDF.js sees the file, every stream in it
// (page contents, fonts, object streams, cross-reference streams) is found here by its
// `stream` keyword and decoded through its filters with a budget: what all of them inflate to
// together may not pass the limit. Images are left out: text extraction never decodes them.

interface StreamInfo {
  /** "id generation" of the object, when its header could be read. */
  object: string | undefined;
  filters: string[];
  /** /EarlyChange of an LZWDecode filter's parameters. */
  earlyChange: number;
  image: boolean;
  /** Where the data starts. */
  start: number;
  /** Where the data ends: by its /Length when that is a number and fits, else at `endstream`. */
  end: number;
}

const ABBREVIATIONS: Record<string, string> = {
  Fl: "FlateDecode",
  LZW: "LZWDecode",
  RL: "RunLengthDecode",
  AHx: "ASCIIHexDecode",
  A85: "ASCII85Decode",
};

function pdfName(raw: string): string {
  const name = raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return ABBREVIATIONS[name] ?? name;
}

/** The objects of a PDF by "id generation", found in one pass when a value refers to one. */
class PdfObjects {
  private offsets: Map<string, number> | undefined;
  private references: Map<string, number> | undefined;

  constructor(readonly text: string) {}

  /** A value itself, or the body of the object it refers to (`12 0 R`); undefined when that object is not in plain sight (in an object stream). */
  resolve(value: string): string | undefined {
    const reference = /^(\d+)\s+(\d+)\s+R/.exec(value.trim());
    if (!reference) return value;
    if (!this.offsets) {
      this.offsets = new Map();
      for (const match of this.text.matchAll(/(\d+)\s+(\d+)\s+obj\b/g))
        this.offsets.set(`${match[1]} ${match[2]}`, match.index + match[0].length);
    }
    const offset = this.offsets.get(`${reference[1]} ${reference[2]}`);
    if (offset === undefined) return undefined;
    const end = this.text.indexOf("endobj", offset);
    return this.text.slice(offset, end < 0 ? offset + 4096 : Math.min(end, offset + 4096));
  }

  /** How many times the file refers to an object (`12 0 R`), at least once. */
  uses(object: string | undefined): number {
    if (object === undefined) return 1;
    if (!this.references) {
      this.references = new Map();
      for (const match of this.text.matchAll(/(\d+)\s+(\d+)\s+R\b/g)) {
        const key = `${match[1]} ${match[2]}`;
        this.references.set(key, (this.references.get(key) ?? 0) + 1);
      }
    }
    return Math.max(1, this.references.get(object) ?? 0);
  }
}

function filtersOf(objects: PdfObjects, dictionary: string): string[] {
  const raw = /\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+|\d+\s+\d+\s+R)/.exec(dictionary)?.[1];
  if (!raw) return [];
  const value = objects.resolve(raw);
  // A filter kept where this scan cannot read it is taken for the common one: inflating data
  // that is not zlib fails at its first bytes, so the guess costs nothing when wrong.
  if (value === undefined) return ["FlateDecode"];
  return [...value.matchAll(/\/([^\s/[\]<>()]+)/g)].map((match) => pdfName(match[1] as string));
}

function streamAt(objects: PdfObjects, keyword: number): StreamInfo | undefined {
  const { text } = objects;
  const header = text.lastIndexOf("obj", keyword);
  if (header < 0) return undefined;
  const dictionary = text.slice(Math.max(header, keyword - 1024 * 1024), keyword);
  let start = keyword + "stream".length;
  if (text[start] === "\r") start++;
  if (text[start] === "\n") start++;
  const lengthValue = /\/Length\s+(\d+\s+\d+\s+R|\d+)/.exec(dictionary)?.[1];
  const length = lengthValue ? Number((objects.resolve(lengthValue) ?? "").trim().split(/\s/)[0]) : Number.NaN;
  const marked = text.indexOf("endstream", start);
  const fits =
    Number.isInteger(length) &&
    length >= 0 &&
    start + length <= text.length &&
    /^\s*endstream/.test(text.slice(start + length, start + length + 32));
  const end = fits ? start + length : marked < 0 ? text.length : marked;
  const id = /(\d+)\s+(\d+)\s+$/.exec(text.slice(Math.max(0, header - 32), header));
  return {
    object: id ? `${id[1]} ${id[2]}` : undefined,
    filters: filtersOf(objects, dictionary),
    earlyChange: /\/EarlyChange\s+0\b/.test(dictionary) ? 0 : 1,
    image: /\/Subtype\s*\/Image\b/.test(dictionary),
    start,
    end,
  };
}

/** Decodes a stream's data through its expanding filters, up to the budget. */
async function decodedSize(data: Uint8Array, stream: StreamInfo, budget: number): Promise<Decoded> {
  let input: Uint8Array = data;
  const expanding = stream.filters.filter(
    (name) => name === "FlateDecode" || name === "LZWDecode" || name === "RunLengthDecode",
  );
  if (expanding.length === 0) return { size: 0, over: false };
  let result: Decoded = { size: 0, over: false };
  for (const [index, name] of stream.filters.entries()) {
    const last = index === stream.filters.length - 1;
    if (name === "FlateDecode") result = await inflateBounded(input, budget, !last);
    else if (name === "LZWDecode") result = lzwBounded(input, stream.earlyChange, budget, !last);
    else if (name === "RunLengthDecode") result = runLengthBounded(input, budget, !last);
    // The ASCII filters shrink their input; an image filter ends what text extraction decodes.
    else if (name === "ASCIIHexDecode" || name === "ASCII85Decode")
      result = { size: input.length, over: false, bytes: Buffer.from(input) };
    else break;
    if (result.over || !result.bytes) return result;
    input = result.bytes;
  }
  return result;
}

/**
 * Refuses a PDF whose streams (images aside) inflate to more than the limit together, a stream
 * counted once for each reference to it.
 */
export async function checkPdf(bytes: Buffer, limits: DocumentLimits): Promise<void> {
  const text = bytes.toString("latin1");
  const objects = new PdfObjects(text);
  let total = 0;
  for (let at = text.indexOf("stream"); at >= 0; at = text.indexOf("stream", at + 6)) {
    if (text.startsWith("end", at - 3)) continue;
    const stream = streamAt(objects, at);
    if (!stream || stream.image) continue;
    // Inflation finds its own end: a stream whose /Length cannot be read here is not cut short.
    const data = bytes.subarray(stream.start, stream.filters[0] === "FlateDecode" ? bytes.length : stream.end);
    // A stream that many pages share is decoded for each of them.
    const uses = objects.uses(stream.object);
    const decoded = await decodedSize(data, stream, Math.floor((limits.maxDecompressedBytes - total) / uses));
    total += decoded.size * uses;
    if (decoded.over || total > limits.maxDecompressedBytes) throw tooLargeDecompressed(limits);
  }
}
