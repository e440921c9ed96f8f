import type { Queryable } from "@voiceops/platform";

/** A record's contribution to the counters: the names it adds one to (a name may repeat). */
export interface RecordState {
  counters: string[];
  /** Facts later events need (a quote's status, to see it enter "approved"). */
  attrs?: Record<string, unknown>;
  /** The record's own updated_at: an older state than the stored one is ignored. */
  version?: Date;
}

export interface StoredRecord {
  counters: string[];
  attrs: Record<string, unknown>;
  version: Date | null;
  deleted: boolean;
}

/**
 * One statement (one round trip) for the whole move: lock the stored state, decide (a deleted
 * record stays deleted; an older state than the stored one is ignored), add the difference of
 * the counter names to the counters, store the new state. Answers the decision and the
 * previous state.
 */
const APPLY_RECORD = `WITH previous AS (
  SELECT counters, attrs, version, deleted FROM analytics.records WHERE org_id = $1 AND kind = $2 AND id = $3 FOR UPDATE
), decision AS (
  SELECT NOT coalesce(p.deleted, false)
     AND NOT (NOT $7::boolean AND $6::timestamptz IS NOT NULL AND p.version IS NOT NULL AND $6::timestamptz < p.version) AS apply
  FROM (SELECT 1) AS one LEFT JOIN previous AS p ON true
), deltas AS (
  SELECT name, sum(delta)::bigint AS delta
  FROM (SELECT unnest(counters) AS name, -1 AS delta FROM previous UNION ALL SELECT unnest($4::text[]), 1) AS d
  WHERE (SELECT apply FROM decision)
  GROUP BY name HAVING sum(delta) <> 0
), counted AS (
  INSERT INTO analytics.counters AS c (org_id, name, value) SELECT $1, name, delta FROM deltas
  ON CONFLICT (org_id, name) DO UPDATE SET value = c.value + EXCLUDED.value
), stored AS (
  INSERT INTO analytics.records (org_id, kind, id, counters, attrs, version, deleted)
  SELECT $1, $2, $3, $4::text[], $5::jsonb, coalesce($6::timestamptz, (SELECT version FROM previous)), $7::boolean FROM decision WHERE apply
  ON CONFLICT (org_id, kind, id) DO UPDATE SET counters = EXCLUDED.counters, attrs = EXCLUDED.attrs, version = EXCLUDED.version, deleted = EXCLUDED.deleted
)
SELECT d.apply, p.counters, p.attrs, p.version, p.deleted FROM decision AS d LEFT JOIN previous AS p ON true`;

/**
 * Moves a record to its new state (or deletes it, with null) and its counters with it: the
 * counters of its previous state lose one, those of the new state gain one. Resolves the
 * previous state, or undefined when the change was ignored (stale, or the record is deleted).
 */
export async function applyRecord(tx: Queryable, orgId: string, kind: string, id: string, next: RecordState | null): Promise<StoredRecord | null | undefined> {
  const result = await tx.query<{ apply: boolean; counters: string[] | null; attrs: Record<string, unknown>; version: Date | null; deleted: boolean }>(
    APPLY_RECORD,
    [orgId, kind, id, next?.counters ?? [], JSON.stringify(next?.attrs ?? {}), next?.version ?? null, next === null],
    { prepared: true },
  );
  const row = result.rows[0];
  if (!row?.apply) return undefined;
  return row.counters === null ? null : { counters: row.counters, attrs: row.attrs, version: row.version, deleted: row.deleted };
}

/** The named counters of an organization (absent ones are 0). */
export async function readCounters(db: Queryable, orgId: string, names: string[]): Promise<Map<string, number>> {
  const result = await db.query<{ name: string; value: string }>(`SELECT name, value FROM analytics.counters WHERE org_id = $1 AND name = ANY($2::text[])`, [orgId, names]);
  const values = new Map(names.map((name) => [name, 0]));
  for (const row of result.rows) values.set(row.name, Number(row.value));
  return values;
}
