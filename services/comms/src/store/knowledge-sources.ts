import { newId, selectPage, textSearch, type Queryable } from "@voiceops/platform";
import { SOURCE_COLUMNS, type SourceRow, type SourceStatus, type SourceType } from "./knowledge-rows.js";

interface SourceListQuery {
  page: number;
  pageSize: number;
  status: SourceStatus | undefined;
  type: SourceType | undefined;
  search: string | undefined;
}

export interface NewSource {
  type: SourceType;
  title: string | null;
  url: string | null;
  filename: string | null;
  contentType: string | null;
  bytes: number | null;
  body: string | null;
  objectKey: string | null;
}

/** What a worker needs to ingest a source it claimed. */
export interface ClaimedSource
  extends Pick<SourceRow, "id" | "org_id" | "type" | "title" | "url" | "filename" | "content_type"> {
  body: string | null;
  object_key: string | null;
  attempts: number;
}

export interface IngestedChunk {
  heading: string;
  content: string;
}

export interface IngestionResult {
  title: string | null;
  contentType: string | null;
  bytes: number | null;
  chunks: IngestedChunk[];
  words: string[];
}

const TABLE = "comms.knowledge_sources";
const INSERT_BATCH = 500;

/** Sources of the knowledge base and the ingestion queue they form while processing. */
export class KnowledgeSourceStore {
  async list(db: Queryable, orgId: string, query: SourceListQuery): Promise<{ rows: SourceRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (query.status) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.type) {
      params.push(query.type);
      where.push(`type = $${params.length}`);
    }
    if (query.search) where.push(textSearch(query.search, params, { columns: ["title", "url", "filename"] }));
    const filter = where.join(" AND ");
    return selectPage<SourceRow>(db, {
      total: `SELECT count(*)::int AS total FROM ${TABLE} WHERE ${filter}`,
      rows: `SELECT ${SOURCE_COLUMNS} FROM ${TABLE} WHERE ${filter} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<SourceRow | undefined> {
    const result = await db.query<SourceRow>(
      `SELECT ${SOURCE_COLUMNS} FROM ${TABLE} WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      { cacheable: true, prepared: true },
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, source: NewSource): Promise<SourceRow> {
    const searchText = [source.title, source.url, source.filename].filter((part) => part).join(" ");
    const result = await db.query<SourceRow>(
      `INSERT INTO ${TABLE} (id, org_id, type, title, url, filename, content_type, bytes, body, object_key, search_text)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       RETURNING ${SOURCE_COLUMNS}`,
      [
        newId(),
        orgId,
        source.type,
        source.title,
        source.url,
        source.filename,
        source.contentType,
        source.bytes,
        source.body,
        source.objectKey,
        searchText,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`insert into ${TABLE} returned no row`);
    return row;
  }

  /**
   * Deletes a source (its chunks and term counts go with it) and takes its words out of the
   * vocabulary; call it in a transaction. Resolves the row, or undefined when it does not
   * exist in the org.
   */
  async delete(
    tx: Queryable,
    orgId: string,
    id: string,
  ): Promise<{ id: string; object_key: string | null } | undefined> {
    const result = await tx.query<{ id: string; object_key: string | null; words: string[] }>(
      `DELETE FROM ${TABLE} WHERE org_id = $1 AND id = $2 RETURNING id, object_key, words`,
      [orgId, id],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    if (row.words.length > 0) {
      await tx.query(
        `UPDATE comms.knowledge_words SET sources = sources - 1 WHERE org_id = $1 AND word = ANY($2::text[])`,
        [orgId, row.words],
      );
      await tx.query(
        `DELETE FROM comms.knowledge_words WHERE org_id = $1 AND word = ANY($2::text[]) AND sources <= 0`,
        [orgId, row.words],
      );
    }
    return { id: row.id, object_key: row.object_key };
  }

  /**
   * Ends in error the sources whose ingestion was started maxAttempts times without finishing
   * (the worker died each time: a document that crashes or hangs the process). Resolves them.
   */
  async giveUpAbandoned(db: Queryable, maxAttempts: number): Promise<SourceRow[]> {
    const result = await db.query<SourceRow>(
      `UPDATE ${TABLE}
       SET status = 'error', claimed_until = NULL, body = NULL, updated_at = now(),
           error = 'ingestion did not finish after ' || attempts || ' attempts' || coalesce(': ' || last_error, '')
       WHERE id IN (
         SELECT id FROM ${TABLE}
         WHERE status = 'processing' AND attempts >= $1 AND claimed_until < now()
         ORDER BY claimed_until LIMIT 100 FOR UPDATE SKIP LOCKED)
       RETURNING ${SOURCE_COLUMNS}`,
      [maxAttempts],
    );
    return result.rows;
  }

  /**
   * Claims the next source to ingest for leaseMs: the given one first when it is claimable,
   * else the oldest claimable one (never claimed, or its lease ran out). Counts the attempt.
   */
  async claim(
    db: Queryable,
    leaseMs: number,
    maxAttempts: number,
    preferId?: string,
  ): Promise<ClaimedSource | undefined> {
    const result = await db.query<ClaimedSource>(
      `UPDATE ${TABLE}
       SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => $1::double precision)
       WHERE id = (
         SELECT id FROM ${TABLE}
         WHERE status = 'processing' AND attempts < $2 AND (claimed_until IS NULL OR claimed_until < now())
         ORDER BY (id = $3::uuid) IS TRUE DESC, claimed_until NULLS FIRST, created_at
         LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, org_id, type, title, url, filename, content_type, body, object_key, attempts`,
      [leaseMs / 1000, maxAttempts, preferId ?? null],
    );
    return result.rows[0];
  }

  /** Extends the lease of a source being ingested; false when it is gone (deleted meanwhile). */
  async renew(db: Queryable, id: string, leaseMs: number): Promise<boolean> {
    const result = await db.query(
      `UPDATE ${TABLE} SET claimed_until = now() + make_interval(secs => $2::double precision) WHERE id = $1 AND status = 'processing'`,
      [id, leaseMs / 1000],
    );
    return result.rowCount > 0;
  }

  /** Puts a failed attempt back in the queue, claimable again after delayMs. */
  async retryLater(db: Queryable, id: string, delayMs: number, reason: string): Promise<void> {
    await db.query(
      `UPDATE ${TABLE} SET claimed_until = now() + make_interval(secs => $2::double precision), last_error = $3 WHERE id = $1 AND status = 'processing'`,
      [id, delayMs / 1000, reason],
    );
  }

  /** Lets another worker take a source at once (this one stops before finishing it). */
  async release(db: Queryable, id: string): Promise<void> {
    await db.query(
      `UPDATE ${TABLE} SET claimed_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1 AND status = 'processing'`,
      [id],
    );
  }

  async markError(db: Queryable, id: string, reason: string): Promise<SourceRow | undefined> {
    const result = await db.query<SourceRow>(
      `UPDATE ${TABLE} SET status = 'error', error = $2, claimed_until = NULL, body = NULL, updated_at = now()
       WHERE id = $1 AND status = 'processing' RETURNING ${SOURCE_COLUMNS}`,
      [id, reason],
    );
    return result.rows[0];
  }

  /**
   * Stores the chunks and words of an ingested source and marks it ready, in the caller's
   * transaction. Resolves undefined (and stores nothing) when the source is no longer
   * processing: it was deleted, or another worker finished it.
   */
  async markReady(tx: Queryable, source: ClaimedSource, result: IngestionResult): Promise<SourceRow | undefined> {
    const updated = await tx.query<SourceRow>(
      `UPDATE ${TABLE}
       SET status = 'ready', error = NULL, last_error = NULL, claimed_until = NULL, body = NULL, updated_at = now(),
           chunk_count = $2, title = coalesce(title, $3), content_type = coalesce($4, content_type), bytes = coalesce($5, bytes),
           search_text = concat_ws(' ', coalesce(title, $3), url, filename)
       WHERE id = $1 AND status = 'processing'
       RETURNING ${SOURCE_COLUMNS}`,
      [source.id, result.chunks.length, result.title, result.contentType, result.bytes],
    );
    const row = updated.rows[0];
    if (!row) return undefined;
    for (let start = 0; start < result.chunks.length; start += INSERT_BATCH) {
      const batch = result.chunks.slice(start, start + INSERT_BATCH);
      await tx.query(
        `INSERT INTO comms.knowledge_chunks (id, org_id, source_id, position, heading, content)
         SELECT i, $1, $2, p, h, c FROM unnest($3::uuid[], $4::int[], $5::text[], $6::text[]) AS t(i, p, h, c)`,
        [
          source.org_id,
          source.id,
          batch.map(() => newId()),
          batch.map((_, i) => start + i),
          batch.map((c) => c.heading),
          batch.map((c) => c.content),
        ],
      );
    }
    // ts_stat reads a query text; the id is a uuid the database itself returned.
    await tx.query(
      `INSERT INTO comms.knowledge_terms (org_id, source_id, lexeme, chunks)
       SELECT $1::uuid, $2::uuid, word, ndoc FROM ts_stat(format('SELECT tsv FROM comms.knowledge_chunks WHERE source_id = %L', $2::text))`,
      [source.org_id, source.id],
    );
    // In word order, so that concurrent ingestions lock vocabulary rows in the same order.
    const words = [...new Set(result.words)].sort();
    await tx.query(
      `INSERT INTO comms.knowledge_words (org_id, word, sources)
       SELECT $1, w, 1 FROM unnest($2::text[]) AS t(w) ORDER BY w
       ON CONFLICT (org_id, word) DO UPDATE SET sources = comms.knowledge_words.sources + 1`,
      [source.org_id, words],
    );
    await tx.query(`UPDATE ${TABLE} SET words = $2 WHERE id = $1`, [source.id, words]);
    return row;
  }
}
