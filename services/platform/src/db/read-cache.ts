import type { QueryResult } from "./database.js";

/**
 * Results of reads marked cacheable, for a database this process alone writes (embedded
 * PGlite). Every statement that is not such a read, and every transaction, counts as a write:
 * it empties the cache when it is issued and again when it ends, so a result is only ever
 * served while no write has been issued since it was read. PGlite runs statements one at a time
 * in the order they are issued, so a read that started before a write saw the state before it;
 * its result is not kept.
 *
 * Results are frozen (rows and the arrays and objects inside them): callers share them.
 */
export class ReadCache {
  /** Key -> result, least recently used first (a Map keeps insertion order). */
  readonly #results = new Map<string, QueryResult<unknown>>();
  /** Advanced by every write; a read keeps its result only if none was issued while it ran. */
  #writes = 0;

  constructor(
    /** The most results kept. */
    readonly capacity = 1_000,
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
    const kept = this.#results.get(key);
    if (kept !== undefined) {
      // Most recently used last.
      this.#results.delete(key);
      this.#results.set(key, kept);
      return kept as QueryResult<R>;
    }
    const writesBefore = this.#writes;
    const result = await run();
    if (this.#writes === writesBefore) {
      const frozen = deepFreeze({ rows: result.rows, rowCount: result.rowCount });
      this.#results.set(key, frozen);
      if (this.#results.size > this.capacity) {
        const [oldest] = this.#results.keys();
        if (oldest !== undefined) this.#results.delete(oldest);
      }
      return frozen;
    }
    return result;
  }

  #invalidate(): void {
    this.#writes++;
    if (this.#results.size > 0) this.#results.clear();
  }
}

/** The SQL text and its parameters; `\u0000` cannot occur in either's text form. */
function cacheKey(sql: string, params: readonly unknown[]): string {
  return `${sql}\u0000${JSON.stringify(params)}`;
}

/** Freezes arrays and plain objects, and those inside them (dates and byte arrays are left as they are). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
