// What a document is: its kind from its media type, name or first bytes, and the shapes text
// extraction produces. Apart from extract.ts, whose parsers (HTML, PDF, DOCX) load only where
// documents are extracted: the extraction processes, not every process that accepts an upload.

export type Block = { kind: "heading"; level: number; text: string } | { kind: "paragraph"; text: string };

export interface ExtractedDocument {
  title: string | undefined;
  blocks: Block[];
}

export type DocumentKind = "text" | "markdown" | "html" | "pdf" | "docx";

const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

const KIND_OF_TYPE: Record<string, DocumentKind> = {
  "text/plain": "text",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "application/pdf": "pdf",
  [DOCX_TYPE]: "docx",
};

const KIND_OF_EXTENSION: Record<string, DocumentKind> = {
  txt: "text",
  text: "text",
  md: "markdown",
  markdown: "markdown",
  htm: "html",
  html: "html",
  xhtml: "html",
  pdf: "pdf",
  docx: "docx",
};

function extensionOf(name: string | undefined): string | undefined {
  const match = /\.([a-z0-9]+)$/i.exec(name ?? "");
  return match?.[1]?.toLowerCase();
}

/**
 * What the sender says a file is: the kind of its declared media type (undefined when not a
 * supported one) and of its name's ending. A server may call Markdown text/plain; the
 * extension is the better witness then.
 */
function statedKinds(
  contentType: string | undefined,
  name: string | undefined,
): { declared: DocumentKind | undefined; byExtension: DocumentKind | undefined } {
  const declared = contentType ? KIND_OF_TYPE[contentType.split(";", 1)[0]?.trim().toLowerCase() ?? ""] : undefined;
  const byExtension = KIND_OF_EXTENSION[extensionOf(name) ?? ""];
  return { declared: declared === "text" && byExtension === "markdown" ? "markdown" : declared, byExtension };
}

/**
 * What kind of document the bytes are: the declared media type when it is a supported one,
 * else the file name's extension, else the bytes themselves. Undefined when unsupported.
 */
export function documentKind(
  bytes: Uint8Array,
  contentType: string | undefined,
  name: string | undefined,
): DocumentKind | undefined {
  const { declared, byExtension } = statedKinds(contentType, name);
  if (declared) return declared;
  const generic =
    contentType === undefined ||
    /^(application\/octet-stream|binary\/octet-stream|application\/x-download)\b/i.test(contentType);
  if (!generic) return undefined;
  if (byExtension) return byExtension;
  const head = Buffer.from(bytes.subarray(0, 512)).toString("latin1");
  if (head.startsWith("%PDF-")) return "pdf";
  if (/^\s*(<!doctype html|<html)/i.test(head)) return "html";
  if (!head.includes("\u0000")) return "text";
  return undefined;
}

/**
 * The media type of a file from what its sender says (its declared type when supported, else
 * its name's ending), before its bytes are read; undefined when neither tells.
 */
export function declaredMediaType(contentType: string | undefined, name: string | undefined): string | undefined {
  const { declared, byExtension } = statedKinds(contentType, name);
  const kind = declared ?? byExtension;
  return kind ? mediaTypeOf(kind) : undefined;
}

/** The media type written for a kind of document. */
export function mediaTypeOf(kind: DocumentKind): string {
  return { text: "text/plain", markdown: "text/markdown", html: "text/html", pdf: "application/pdf", docx: DOCX_TYPE }[
    kind
  ];
}
