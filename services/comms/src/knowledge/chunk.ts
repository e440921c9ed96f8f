import type { Block } from "./document-kinds.js";

// Splits a document into the chunks search ranks: along its headings and paragraphs, about
// 1,500 characters each. A section too long for one chunk is split between paragraphs (or
// sentences, or words), and each continuation starts with the last ~200 characters of the
// chunk before it, so an answer that straddles the cut is whole in one of them. Sections too
// short to stand alone share a chunk with their neighbours.

interface Chunk {
  /** The headings the chunk's text sits under, "Price list > Drain cleaning". */
  heading: string;
  content: string;
}

interface ChunkOptions {
  maxChars: number;
  overlapChars: number;
  /** Sections shorter than this are grouped with their neighbours. */
  minSectionChars: number;
}

const DEFAULT_CHUNKING: ChunkOptions = { maxChars: 1500, overlapChars: 200, minSectionChars: 200 };

interface Section {
  /** Heading trail, outermost first. */
  trail: string[];
  paragraphs: string[];
}

function sectionsOf(blocks: Block[]): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  let current: Section = { trail: [], paragraphs: [] };
  for (const block of blocks) {
    if (block.kind === "heading") {
      if (current.paragraphs.length > 0 || current.trail.length > 0) sections.push(current);
      while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= block.level) stack.pop();
      stack.push({ level: block.level, text: block.text });
      current = { trail: stack.map((entry) => entry.text), paragraphs: [] };
    } else {
      current.paragraphs.push(block.text);
    }
  }
  if (current.paragraphs.length > 0 || current.trail.length > 0) sections.push(current);
  // A heading directly followed by a deeper one has no text of its own: it lives on in the trail.
  return sections.filter(
    (section, index) => section.paragraphs.length > 0 || !isAncestorOf(section, sections[index + 1]),
  );
}

function isAncestorOf(section: Section, next: Section | undefined): boolean {
  if (!next || next.trail.length <= section.trail.length) return false;
  return section.trail.every((text, i) => next.trail[i] === text);
}

/** Pieces of a text no longer than max: at sentence ends where possible, else at spaces, else anywhere. */
function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    let cut = Math.max(
      window.lastIndexOf(". "),
      window.lastIndexOf("? "),
      window.lastIndexOf("! "),
      window.lastIndexOf("\n"),
    );
    if (cut < max * 0.5) cut = window.lastIndexOf(" ");
    if (cut < max * 0.3) cut = max;
    else cut += 1;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces.filter((piece) => piece !== "");
}

/** The last ~overlap characters of a text, starting at a sentence or word boundary. */
function tail(text: string, overlap: number): string {
  if (text.length <= overlap) return text;
  const window = text.slice(text.length - overlap);
  const sentence = window.search(/[.!?]\s+\S/);
  if (sentence >= 0 && window.length - sentence > overlap * 0.4) return window.slice(sentence + 1).trim();
  const space = window.indexOf(" ");
  return (space >= 0 ? window.slice(space + 1) : window).trim();
}

function sectionText(section: Section): number {
  return section.paragraphs.reduce(
    (sum, p) => sum + p.length + 2,
    (section.trail[section.trail.length - 1]?.length ?? 0) + 2,
  );
}

/** The chunks of one section (its heading line first, continuations overlapping the chunk before). */
function chunkSection(section: Section, options: ChunkOptions): { lines: string[] }[] {
  const title = section.trail[section.trail.length - 1];
  const head = title ? [title] : [];
  const budget = options.maxChars - (title?.length ?? 0) - 2;
  const paragraphs = section.paragraphs.flatMap((p) => splitLong(p, Math.max(200, budget - options.overlapChars - 2)));
  const chunks: { lines: string[] }[] = [];
  let body: string[] = [];
  let size = 0;
  for (const paragraph of paragraphs) {
    if (body.length > 0 && size + paragraph.length + 2 > budget) {
      chunks.push({ lines: [...head, ...body] });
      const carried = tail(body.join("\n\n"), options.overlapChars);
      body = carried ? [carried] : [];
      size = carried.length + 2;
    }
    body.push(paragraph);
    size += paragraph.length + 2;
  }
  if (body.length > 0 || chunks.length === 0) chunks.push({ lines: [...head, ...body] });
  return chunks;
}

function parentOf(section: Section): string {
  return section.trail.slice(0, -1).join("\u0001");
}

/** Splits the blocks of a document into chunks, in reading order. */
export function chunkDocument(blocks: Block[], options: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  const out: Chunk[] = [];
  // Short sections wait in a group until it would grow past the chunk size.
  let group: Section[] = [];
  let groupSize = 0;
  const flushGroup = () => {
    if (group.length === 0) return;
    const headings = [...new Set(group.flatMap((s) => s.trail))];
    const lines = group.flatMap((s) => {
      const title = s.trail[s.trail.length - 1];
      return [...(title ? [title] : []), ...s.paragraphs];
    });
    out.push({ heading: headings.join(" > "), content: lines.join("\n\n") });
    group = [];
    groupSize = 0;
  };
  for (const section of sectionsOf(blocks)) {
    const size = sectionText(section);
    if (size < options.minSectionChars) {
      // Only siblings (sections under the same parent heading) share a chunk.
      const first = group[0];
      if (groupSize + size > options.maxChars || (first && parentOf(first) !== parentOf(section))) flushGroup();
      group.push(section);
      groupSize += size;
      continue;
    }
    flushGroup();
    for (const chunk of chunkSection(section, options)) {
      out.push({ heading: section.trail.join(" > "), content: chunk.lines.join("\n\n") });
    }
  }
  flushGroup();
  return out.filter((chunk) => chunk.content.trim() !== "");
}
