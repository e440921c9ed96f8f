import type { Queryable } from "@voiceops/platform";

/** A record's contribution to the counters: the names it adds one to (a name may repeat). */
interface RecordState {
  counters: string[];
  /** Facts later events need (a quote's status, to see it enter "approved"). */
  attrs?: Record<string, unknown>;
  /** The record's own updated_at: an older state than the stored one is ignored. */
  version?: Date;
}

interface StoredRecord {
  counters: string[];
  attrs: Record<string, unknown>;
  version: Date | null;
  deleted: boolean;
}

/** A record to move to its next state (null: deleted). */
export interface RecordChange {
  orgId: string;
  kind: string;
  id: string;
  next: RecordState | null;
}

/**
 * One statement for the moves of several distinct records: lock their stored states, decide for
 * each (a deleted record stays deleted; an older state than the stored one is ignored), add the
 * differences of their counter names to the counters, store the new states. Answers each
 * change's decision and previous state, by its position `n`. Rows are locked and counters
 * written in key order, so two such statements cannot deadlock on each other.
 *
 * The stored states are looked up one key at a time (LATERAL): as a join, the statement's
 * generic plan, made while the table was small and kept as it grew (PGlite never analyzes),
 * hashed the input and scanned every record for each batch of events.
 */
export const APPLY_RECORDS = `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(n int, org_id uuid, kind text, id text, counters text[], attrs jsonb, version timestamptz, deleted boolean)
), previous AS (
  SELECT stored.* FROM (SELECT org_id, kind, id FROM input ORDER BY org_id, kind, id) AS i
  CROSS JOIN LATERAL (
    SELECT r.org_id, r.kind, r.id, r.counters, r.attrs, r.version, r.deleted
    FROM analytics.records AS r WHERE r.org_id = i.org_id AND r.kind = i.kind AND r.id = i.id
    FOR UPDATE
  ) AS stored
), decision AS (
  SELECT i.*, p.counters AS previous_counters, p.attrs AS previous_attrs, p.version AS previous_version, p.deleted AS previous_deleted,
         NOT coalesce(p.deleted, false) AND NOT (NOT i.deleted AND i.version IS NOT NULL AND p.version IS NOT NULL AND i.version < p.version) AS apply
  FROM input AS i LEFT JOIN previous AS p ON p.org_id = i.org_id AND p.kind = i.kind AND p.id = i.id
), deltas AS (
  SELECT org_id, name, sum(delta)::bigint AS delta
  FROM (SELECT org_id, unnest(previous_counters) AS name, -1 AS delta FROM decision WHERE apply
        UNION ALL SELECT org_id, unnest(counters), 1 FROM decision WHERE apply) AS d
  GROUP BY org_id, name HAVING sum(delta) <> 0
), counted AS (
  INSERT INTO analytics.counters AS c (org_id, name, value) SELECT org_id, name, delta FROM deltas ORDER BY org_id, name
  ON CONFLICT (org_id, name) DO UPDATE SET value = c.value + EXCLUDED.value
), stored AS (
  INSERT INTO analytics.records (org_id, kind, id, counters, attrs, version, deleted)
  SELECT org_id, kind, id, counters, attrs, coalesce(version, previous_version), deleted FROM decision WHERE apply ORDER BY org_id, kind, id
  ON CONFLICT (org_id, kind, id) DO UPDATE SET counters = EXCLUDED.counters, attrs = EXCLUDED.attrs, version = EXCLUDED.version, deleted = EXCLUDED.deleted
)
SELECT n, apply, previous_counters AS counters, previous_attrs AS attrs, previous_version AS version, previous_deleted AS deleted FROM decision`;

/**
 * Moves records to their new states (or deletes them, with null) and their counters with them,
 * with the effect of one change after another: the counters of a record's previous state lose
 * one, those of its new state gain one. Resolves, for each change, the previous state, null when
 * there was none, or undefined when the change was ignored (stale, or the record is deleted).
 * Changes of distinct records share a statement; a record changed again starts the next one.
 */
export async function applyRecords(
  tx: Queryable,
  changes: readonly RecordChange[],
): Promise<(StoredRecord | null | undefined)[]> {
  const results: (StoredRecord | null | undefined)[] = [];
  let chunk: RecordChange[] = [];
  let keys = new Set<string>();
  for (const change of changes) {
    const key = `${change.orgId}/${change.kind}/${change.id}`;
    if (keys.has(key)) {
      results.push(...(await applyDistinct(tx, chunk)));
      chunk = [];
      keys = new Set();
    }
    chunk.push(change);
    keys.add(key);
  }
  if (chunk.length > 0) results.push(...(await applyDistinct(tx, chunk)));
  return results;
}

async function applyDistinct(
  tx: Queryable,
  changes: readonly RecordChange[],
): Promise<(StoredRecord | null | undefined)[]> {
  const input = changes.map(({ orgId, kind, id, next }, n) => ({
    n,
    org_id: orgId,
    kind,
    id,
    counters: next?.counters ?? [],
    attrs: next?.attrs ?? {},
    version: next?.version ?? null,
    deleted: next === null,
  }));
  const result = await tx.query<{
    n: number;
    apply: boolean;
    counters: string[] | null;
    attrs: Record<string, unknown>;
    version: Date | null;
    deleted: boolean;
  }>(APPLY_RECORDS, [JSON.stringify(input)], { prepared: true });
  const results: (StoredRecord | null | undefined)[] = changes.map(() => undefined);
  for (const row of result.rows) {
    if (!row.apply) continue;
    results[row.n] =
      row.counters === null
        ? null
        : { counters: row.counters, attrs: row.attrs, version: row.version, deleted: row.deleted };
  }
  return results;
}

/** One record's move (see applyRecords). */
export async function applyRecord(
  tx: Queryable,
  orgId: string,
  kind: string,
  id: string,
  next: RecordState | null,
): Promise<StoredRecord | null | undefined> {
  const [previous] = await applyRecords(tx, [{ orgId, kind, id, next }]);
  return previous;
}

/** The named counters of an organization (absent ones are 0). */
export async function readCounters(db: Queryable, orgId: string, names: string[]): Promise<Map<string, number>> {
  const result = await db.query<{ name: string; value: string }>(
    `SELECT name, value FROM analytics.counters WHERE org_id = $1 AND name = ANY($2::text[])`,
    [orgId, names],
  );
  const values = new Map(names.map((name) => [name, 0]));
  for (const row of result.rows) values.set(row.name, Number(row.value));
  return values;
}

/** Whether the record is stored (deleted or not). */
export async function hasRecord(db: Queryable, orgId: string, kind: string, id: string): Promise<boolean> {
  const result = await db.query(`SELECT 1 FROM analytics.records WHERE org_id = $1 AND kind = $2 AND id = $3`, [
    orgId,
    kind,
    id,
  ]);
  return result.rows.length > 0;
}
