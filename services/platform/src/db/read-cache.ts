import type { QueryResult } from "./database.js";

/** A result larger than this (by a rough count of its text) is not kept. */
const MAX_RESULT_BYTES = 256 * 1024;

/**
 * Results of reads marked cacheable, for a database this process alone writes (embedded
 * PGlite). Every statement that is not such a read, and every transaction, counts as a write:
 * it empties the cache when it is issued and again when it ends, so a result is only ever
 * served while no write has been issued since it was read. PGlite runs statements one at a time
 * in the order they are issued, so a read that started before a write saw the state before it;
 * its result is not kept.
 *
 * Results are frozen (rows and the arrays and objects inside them): callers share them. The
 * cache holds at most `capacity` results and about `maxBytes` of them (roughly counted: the
 * length of each text, 16 bytes for any other value).
 */
export class ReadCache {
  /** Key -> result, least recently used first (a Map keeps insertion order). */
  readonly #results = new Map<string, { result: QueryResult<unknown>; bytes: number }>();
  #bytes = 0;
  /** Advanced by every write; a read keeps its result only if none was issued while it ran. */
  #writes = 0;

  constructor(
    /** The most results kept. */
    readonly capacity = 1_000,
    /** About the most memory the kept results take. */
    readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  get size(): number {
    return this.#results.size;
  }

  /** Runs a write (anything but a cacheable read), emptying the cache as it is issued and as it ends. */
  async write<T>(run: () => Promise<T>): Promise<T> {
    this.#invalidate();
    try {
      return await run();
    } finally {
      this.#invalidate();
    }
  }

  /** A cacheable read: the kept result if no write was issued since it was read, else `run()`'s. */
  async read<R>(sql: string, params: readonly unknown[], run: () => Promise<QueryResult<R>>): Promise<QueryResult<R>> {
    const key = cacheKey(sql, params);
    if (key === undefined) return run();
    const kept = this.#results.get(key);
    if (kept !== undefined) {
      // Most recently used last.
      this.#results.delete(key);
      this.#results.set(key, kept);
      return kept.result as QueryResult<R>;
    }
    const writesBefore = this.#writes;
    const result = await run();
    if (this.#writes !== writesBefore) return result;
    const frozen = { rows: result.rows, rowCount: result.rowCount };
    const bytes = key.length + freeze(frozen);
    if (bytes > MAX_RESULT_BYTES) return frozen;
    // Two reads of the same key may have run at once: the later one's result replaces the other.
    this.#bytes += bytes - (this.#results.get(key)?.bytes ?? 0);
    this.#results.delete(key);
    this.#results.set(key, { result: frozen, bytes });
    for (const [oldest, entry] of this.#results) {
      if (this.#results.size <= this.capacity && this.#bytes <= this.maxBytes) break;
      this.#results.delete(oldest);
      this.#bytes -= entry.bytes;
    }
    return frozen;
  }

  #invalidate(): void {
    this.#writes++;
    if (this.#results.size > 0) this.#results.clear();
    this.#bytes = 0;
  }
}

/**
 * The SQL text and its parameters (`\u0000` cannot occur in either's text form); undefined for
 * parameters JSON cannot write (a bigint), whose read then goes to the database.
 */
function cacheKey(sql: string, params: readonly unknown[]): string | undefined {
  try {
    return `${sql}\u0000${JSON.stringify(params)}`;
  } catch {
    return undefined;
  }
}

/**
 * Freezes arrays and plain objects, and those inside them (dates and byte arrays are left as
 * they are); returns the rough size of the whole.
 */
function freeze(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (typeof value !== "object" || value === null) return 16;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  let bytes = 16;
  if (
    Array.isArray(value) ||
    Object.getPrototypeOf(value) === Object.prototype ||
    Object.getPrototypeOf(value) === null
  ) {
    Object.freeze(value);
    for (const [name, inner] of Object.entries(value)) bytes += name.length + freeze(inner);
  }
  return bytes;
}
