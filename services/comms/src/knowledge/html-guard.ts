import { Parser } from "htmlparser2";
import type { DocumentLimits } from "./document-limits.js";
import { IngestionError } from "./errors.js";

// The DOM that HTML extraction builds (twice: the page, and Readability's copy) costs a few
// hundred bytes per element, and walking it recurses once per level. Before building it, the
// markup is tokenized here (no tree, constant memory) and a page with too many elements or
// nesting too deep is refused.

/** Refuses an HTML page over the element or depth limit; throws an IngestionError saying which. */
export function checkHtml(html: string, limits: DocumentLimits): void {
  let elements = 0;
  let depth = 0;
  let refusal: IngestionError | undefined;
  const parser = new Parser(
    {
      onopentag() {
        elements++;
        depth++;
        if (refusal) return;
        if (elements > limits.maxHtmlElements) {
          refusal = new IngestionError(
            `the page has more than ${limits.maxHtmlElements.toLocaleString("en-US")} HTML elements`,
            false,
          );
        } else if (depth > limits.maxHtmlDepth) {
          refusal = new IngestionError(
            `the page nests HTML elements more than ${limits.maxHtmlDepth.toLocaleString("en-US")} levels deep`,
            false,
          );
        }
        if (refusal) parser.pause();
      },
      onclosetag() {
        depth = Math.max(0, depth - 1);
      },
    },
    { decodeEntities: false },
  );
  // Written in slices, so that a refusal stops the tokenizer without reading the rest.
  const SLICE = 64 * 1024;
  for (let at = 0; at < html.length && !refusal; at += SLICE) parser.write(html.slice(at, at + SLICE));
  if (!refusal) parser.end();
  if (refusal) throw refusal;
}
