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

interface TextSearch {
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
  const within = [
    ...spec.columns.map((column) => `${alias}${column} ILIKE {p} ESCAPE '\\'`),
    ...(spec.alsoWithin ?? []),
  ];
  const narrowing = indexedSearchPattern(search, params);
  const options = [
    `(${alias}search_text ILIKE ${narrowing} ESCAPE '\\' AND (${within.join(" OR ")}))`,
    ...(spec.besides ?? []),
  ];
  if (spec.phoneDigits && looksLikePhone(search))
    options.push(phoneDigitsMatch(`${alias}${spec.phoneDigits}`, search, params));
  return `(${options.join(" OR ").replaceAll("{p}", p)})`;
}

/**
 * How many trailing digits of a phone number the trigram indexes are asked for. A business's
 * numbers share their leading digits (country and area code): trigrams of those are in nearly
 * every row, and asking an index for them reads its longest lists to narrow nothing. Each row
 * found is still matched against the whole text.
 */
const DISTINCT_PHONE_DIGITS = 7;

/** The end of a phone-like text from its seventh digit from last on (the text when it has fewer). */
function phoneTail(text: string): string {
  let digits = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57 && ++digits === DISTINCT_PHONE_DIGITS) return text.slice(i);
  }
  return text;
}

/** Whether a search is a phone number long enough for its tail to find few rows (see DISTINCT_PHONE_DIGITS). */
function isDistinctPhone(search: string): boolean {
  return looksLikePhone(search) && phoneDigits(search).length >= DISTINCT_PHONE_DIGITS;
}

/**
 * The organization condition of a table that a search narrows through trigram indexes led by
 * `org_id`. For most searches it is the index's first key. For a phone number's last seven
 * digits it is a check on each row found instead: those digits find a handful of rows in the
 * whole table, while the index's `org_id` key of a large organization is a list of every one
 * of its rows (a million in a large one) that the scan would read to intersect with them.
 * `param` holds the organization's id.
 */
export function organizationFilter(search: string | undefined, param = "$1", alias = ""): string {
  return search !== undefined && isDistinctPhone(search)
    ? `${alias}org_id::text = ${param}::uuid::text`
    : `${alias}org_id = ${param}`;
}

/**
 * The parameter that narrows `search_text` for a search: "{p}" (the whole pattern) for text,
 * the tail of a phone-like text (pushed as a parameter) for numbers; the caller still matches
 * the whole pattern within the row's fields.
 */
export function indexedSearchPattern(search: string, params: unknown[]): string {
  if (!looksLikePhone(search)) return "{p}";
  const tail = phoneTail(search);
  if (tail === search) return "{p}";
  params.push(likePattern(tail));
  return `$${params.length}`;
}

/**
 * A phone digits column containing the search's digits: the index is asked for the last seven
 * (see DISTINCT_PHONE_DIGITS), and the whole run is checked on an expression no index serves,
 * so the planner keeps it a filter.
 */
export function phoneDigitsMatch(column: string, search: string, params: unknown[]): string {
  const digits = phoneDigits(search);
  params.push(likePattern(digits));
  const whole = `$${params.length}`;
  if (digits.length <= DISTINCT_PHONE_DIGITS) return `${column} LIKE ${whole} ESCAPE '\\'`;
  params.push(likePattern(digits.slice(-DISTINCT_PHONE_DIGITS)));
  return `(${column} LIKE $${params.length} ESCAPE '\\' AND (${column} || '') LIKE ${whole} ESCAPE '\\')`;
}
