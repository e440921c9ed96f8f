import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import mammoth from "mammoth";
import { getDocumentProxy, getMeta } from "unpdf";
import type { Block, DocumentKind, ExtractedDocument } from "./document-kinds.js";
import { type DocumentLimits, tooMuchText } from "./document-limits.js";
import { IngestionError } from "./errors.js";
import { checkHtml } from "./html-guard.js";
import { checkPdf } from "./pdf-guard.js";
import { checkZip } from "./zip-guard.js";

// Text extraction: a document's bytes become a title and a list of blocks (headings and
// paragraphs), which the chunker then packs into chunks along that structure.

function decodeText(bytes: Uint8Array, charset: string | undefined): string {
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset ?? "utf-8");
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  // NUL characters cannot be stored in PostgreSQL text; they carry nothing readable anyway.
  return decoder.decode(bytes).replace(/\u0000/g, "");
}

function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

// ---- plain text and Markdown ----

const MARKDOWN_HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
/** A line that starts a list item or a table row. */
const LINE_ITEM = /^([-*+•]\s|\d+[.)]\s|\|)/;

/** Blocks of plain text or Markdown: ATX and setext headings, and paragraphs split at blank lines. */
function textBlocks(text: string, markdown: boolean): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    // Wrapped lines of one paragraph join with a space; list items and table rows keep their lines.
    let body = "";
    for (const line of paragraph) {
      const trimmed = line.trim();
      if (body === "") body = trimmed;
      else if (LINE_ITEM.test(trimmed)) body += `\n${trimmed}`;
      else body += ` ${trimmed}`;
    }
    if (body) blocks.push({ kind: "paragraph", text: body });
    paragraph = [];
  };
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heading = MARKDOWN_HEADING.exec(line.trim());
    if (heading && (markdown || line.startsWith("#"))) {
      flush();
      blocks.push({ kind: "heading", level: heading[1]?.length ?? 1, text: collapse(heading[2] ?? "") });
      continue;
    }
    const next = lines[i + 1]?.trim() ?? "";
    if (markdown && paragraph.length === 0 && line.trim() && /^(=+|-+)$/.test(next) && next.length >= 2) {
      blocks.push({ kind: "heading", level: next.startsWith("=") ? 1 : 2, text: collapse(line) });
      i++;
      continue;
    }
    if (line.trim() === "") flush();
    else paragraph.push(line.trimEnd());
  }
  flush();
  return blocks;
}

// ---- HTML ----

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "iframe",
  "object",
  "canvas",
  "button",
  "select",
  "input",
  "textarea",
  "head",
]);
const CHROME = new Set(["nav", "footer", "header", "aside", "form"]);
const BLOCK_TAGS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "blockquote",
  "pre",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "figure",
  "figcaption",
  "address",
  "details",
  "summary",
  "fieldset",
  "hr",
  "body",
  "html",
]);

/** Blocks of an HTML fragment or page; `dropChrome` leaves out navigation, headers and footers. */
function htmlBlocks(root: DomNode, dropChrome: boolean): Block[] {
  const blocks: Block[] = [];
  let inline = "";
  const flush = () => {
    const text = inline
      .split("\n")
      .map((line) => collapse(line))
      .filter((line) => line !== "")
      .join("\n");
    if (text) blocks.push({ kind: "paragraph", text });
    inline = "";
  };
  const walk = (node: DomNode, pre: boolean) => {
    if (node.nodeType === 3) {
      inline += pre ? (node.textContent ?? "") : (node.textContent ?? "").replace(/\s+/g, " ");
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const tag = node.nodeName.toLowerCase();
    if (SKIPPED.has(tag) || (dropChrome && CHROME.has(tag))) return;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      flush();
      const text = collapse(node.textContent ?? "");
      if (text) blocks.push({ kind: "heading", level: Number(heading[1]), text });
      return;
    }
    if (tag === "br") {
      inline += "\n";
      return;
    }
    if (tag === "tr") {
      flush();
      const cells = Array.from(node.childNodes)
        .filter((cell) => /^(td|th)$/i.test(cell.nodeName))
        .map((cell) => collapse(cell.textContent ?? ""))
        .filter((cell) => cell !== "");
      if (cells.length > 0) blocks.push({ kind: "paragraph", text: cells.join(" | ") });
      return;
    }
    if (tag === "li") {
      flush();
      inline = "- ";
      for (const child of Array.from(node.childNodes)) walk(child, pre);
      if (inline.trim() === "-") inline = "";
      flush();
      return;
    }
    const block = BLOCK_TAGS.has(tag);
    if (block) flush();
    for (const child of Array.from(node.childNodes)) walk(child, pre || tag === "pre");
    if (block) flush();
  };
  walk(root, false);
  flush();
  return blocks;
}

function textLength(blocks: Block[]): number {
  return blocks.reduce((sum, block) => sum + block.text.length, 0);
}

function charsetOf(contentType: string | undefined, bytes: Uint8Array): string | undefined {
  const declared = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? "")?.[1];
  if (declared) return declared;
  const head = Buffer.from(bytes.subarray(0, 2048)).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
}

/** An HTML page: its main content (Mozilla Readability), or the whole body when that finds too little. */
function extractHtml(html: string, limits: DocumentLimits): ExtractedDocument {
  checkHtml(html, limits);
  const page = parseHTML(html).document as unknown as { title?: string; body?: DomNode; documentElement: DomNode };
  const pageTitle = collapse(page.title ?? "") || undefined;
  const whole = htmlBlocks(page.body ?? page.documentElement, true);
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    const copy = parseHTML(html).document;
    article = new Readability(copy as never, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  if (article?.content) {
    const fragment = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document as unknown as {
      body: DomNode;
    };
    const main = htmlBlocks(fragment.body, false);
    // Readability keeps the article; a page of short sections (prices, areas) may lose most of
    // its text that way, and then the whole body (without navigation and footer) is better.
    if (textLength(main) >= 0.6 * textLength(whole)) {
      return { title: pageTitle ?? (collapse(article.title ?? "") || undefined), blocks: main };
    }
  }
  return { title: pageTitle, blocks: whole };
}

// ---- PDF and DOCX ----

/** The text of one page, its items joined as unpdf's extractText joins them. */
async function pageText(pdf: Awaited<ReturnType<typeof getDocumentProxy>>, number: number): Promise<string> {
  const page = await pdf.getPage(number);
  try {
    const content = await page.getTextContent();
    return content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
  } finally {
    page.cleanup();
  }
}

async function extractPdf(bytes: Buffer, limits: DocumentLimits): Promise<ExtractedDocument> {
  await checkPdf(bytes, limits);
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), {
      isEvalSupported: false,
      useSystemFonts: false,
      verbosity: 0,
    });
  } catch (error) {
    throw new IngestionError(
      `the PDF could not be read: ${error instanceof Error ? error.message : String(error)}`,
      false,
    );
  }
  try {
    // Page by page, so that memory holds one page's content at a time and the text limit stops early.
    const text: string[] = [];
    let length = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pageText(pdf, number);
      length += page.length;
      if (length > limits.maxTextChars) throw tooMuchText(limits);
      text.push(page);
    }
    let title: string | undefined;
    try {
      const meta = await getMeta(pdf);
      const info = meta.info as { Title?: unknown } | undefined;
      title = typeof info?.Title === "string" ? collapse(info.Title) || undefined : undefined;
    } catch {
      title = undefined;
    }
    return { title, blocks: text.flatMap((page) => textBlocks(page, false)) };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

/** Images are not read at all (mammoth would inline each as base64). */
const NO_IMAGES = mammoth.images.imgElement(async () => ({ src: "" }));

async function extractDocx(bytes: Buffer, limits: DocumentLimits): Promise<ExtractedDocument> {
  await checkZip(bytes, limits);
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes }, { convertImage: NO_IMAGES })).value;
  } catch (error) {
    throw new IngestionError(
      `the DOCX file could not be read: ${error instanceof Error ? error.message : String(error)}`,
      false,
    );
  }
  const document = parseHTML(`<!doctype html><html><body>${html}</body></html>`).document as unknown as {
    body: DomNode;
  };
  const blocks = htmlBlocks(document.body, false);
  const first = blocks[0];
  return { title: first?.kind === "heading" ? first.text : undefined, blocks };
}

/** Extracts the text of a document; throws an IngestionError when it cannot. */
export async function extractDocument(
  bytes: Buffer,
  kind: DocumentKind,
  limits: DocumentLimits,
  contentType?: string,
): Promise<ExtractedDocument> {
  let document: ExtractedDocument;
  switch (kind) {
    case "text":
      document = { title: undefined, blocks: textBlocks(decodeText(bytes, charsetOf(contentType, bytes)), false) };
      break;
    case "markdown": {
      const blocks = textBlocks(decodeText(bytes, charsetOf(contentType, bytes)), true);
      const first = blocks[0];
      document = { title: first?.kind === "heading" ? first.text : undefined, blocks };
      break;
    }
    case "html":
      document = extractHtml(decodeText(bytes, charsetOf(contentType, bytes)), limits);
      break;
    case "pdf":
      document = await extractPdf(bytes, limits);
      break;
    case "docx":
      document = await extractDocx(bytes, limits);
      break;
  }
  if (textLength(document.blocks) > limits.maxTextChars) throw tooMuchText(limits);
  const blocks = document.blocks
    .map((block) => ({ ...block, text: block.text.replace(/\u0000/g, "") }))
    .filter((block) => block.text.trim() !== "");
  if (blocks.length === 0) {
    throw new IngestionError(
      kind === "pdf"
        ? "no text could be extracted from the PDF (scanned pages without a text layer are not supported)"
        : "the document contains no text",
      false,
    );
  }
  return { title: document.title, blocks };
}
