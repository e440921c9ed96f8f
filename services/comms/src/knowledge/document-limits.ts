import { IngestionError } from "./errors.js";

/**
 * How much a document may expand while its text is extracted. Checked before a parser gets the
 * bytes (what a ZIP declares, what a PDF's streams inflate to, how an HTML page nests), so a
 * decompression bomb is refused in seconds with a reason, instead of exhausting memory.
 */
export interface DocumentLimits {
  /** Most a document may take once decompressed: a DOCX's ZIP entries together, a PDF's streams together. */
  maxDecompressedBytes: number;
  /** Highest ratio of uncompressed to compressed size of one large ZIP entry. */
  maxCompressionRatio: number;
  /** Most text one document may yield, in characters. */
  maxTextChars: number;
  /** Most elements an HTML page may have. */
  maxHtmlElements: number;
  /** Deepest an HTML page's elements may nest. */
  maxHtmlDepth: number;
}

export const MB = 1024 * 1024;

function megabytes(bytes: number): string {
  return `${Math.round((bytes / MB) * 10) / 10} MB`;
}

/** The refusal of a document over the decompressed-size limit (final: trying again cannot help). */
export function tooLargeDecompressed(limits: DocumentLimits): IngestionError {
  return new IngestionError(
    `the document is larger than ${megabytes(limits.maxDecompressedBytes)} when decompressed`,
    false,
  );
}

/** The refusal of a document whose text is over the limit. */
export function tooMuchText(limits: DocumentLimits): IngestionError {
  return new IngestionError(`the document has more than ${megabytes(limits.maxTextChars)} of text`, false);
}
