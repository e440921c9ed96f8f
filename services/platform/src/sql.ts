import { looksLikePhone, phoneDigits } from "./phone.js";

/** Escapes LIKE wildcards so user text matches literally (used with ESCAPE '\'). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** LIKE pattern matching the text anywhere. */
export function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** LIKE pattern matching values that start with the text. */
export function prefixPattern(text: string): string {
  return `${escapeLike(text)}%`;
}

export interface TextSearch {
  /** Columns that may each contain the search text (a match never spans two of them). */
  columns: string[];
  /** Further conditions on the same pattern, "{p}" standing for its parameter (e.g. an EXISTS over an array). */
  alsoWithin?: string[];
  /** Conditions outside the indexed text (another table's column), "{p}" as above. */
  besides?: string[];
  /** Column of phone digits to match when the text looks like a phone number. */
  phoneDigits?: string;
  /** Table alias of the searched table, e.g. "c.". */
  alias?: string;
}

/**
 * WHERE fragment of a case-insensitive substring search; pushes its parameters. The table's
 * `search_text` (its human fields joined, trigram-indexed) narrows the rows, then the text
 * must fall inside one field, since the joined text would also match across two.
 */
export function textSearch(search: string, params: unknown[], spec: TextSearch): string {
  params.push(likePattern(search));
  const p = `$${params.length}`;
  const alias = spec.alias ?? "";
  const within = [...spec.columns.map((column) => `${alias}${column} ILIKE {p} ESCAPE '\\'`), ...(spec.alsoWithin ?? [])];
  const options = [`(${alias}search_text ILIKE {p} ESCAPE '\\' AND (${within.join(" OR ")}))`, ...(spec.besides ?? [])];
  if (spec.phoneDigits && looksLikePhone(search)) {
    params.push(likePattern(phoneDigits(search)));
    options.push(`${alias}${spec.phoneDigits} LIKE $${params.length} ESCAPE '\\'`);
  }
  return `(${options.join(" OR ").replaceAll("{p}", p)})`;
}
