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

function tally(names: string[], sign: 1 | -1, into: Map<string, number>): void {
  for (const name of names) into.set(name, (into.get(name) ?? 0) + sign);
}

async function addToCounters(tx: Queryable, orgId: string, deltas: Map<string, number>): Promise<void> {
  const changed = [...deltas].filter(([, delta]) => delta !== 0);
  if (changed.length === 0) return;
  await tx.query(
    `INSERT INTO analytics.counters (org_id, name, value)
     SELECT $1, name, delta FROM unnest($2::text[], $3::bigint[]) AS d(name, delta)
     ON CONFLICT (org_id, name) DO UPDATE SET value = analytics.counters.value + EXCLUDED.value`,
    [orgId, changed.map(([name]) => name), changed.map(([, delta]) => delta)],
  );
}

/**
 * Moves a record to its new state (or deletes it, with null) and its counters with it: the
 * counters of its previous state lose one, those of the new state gain one. Resolves the
 * previous state, or undefined when the change was ignored (stale, or the record is deleted).
 */
export async function applyRecord(tx: Queryable, orgId: string, kind: string, id: string, next: RecordState | null): Promise<StoredRecord | null | undefined> {
  const found = await tx.query<StoredRecord>(`SELECT counters, attrs, version, deleted FROM analytics.records WHERE org_id = $1 AND kind = $2 AND id = $3 FOR UPDATE`, [
    orgId,
    kind,
    id,
  ]);
  const previous = found.rows[0] ?? null;
  if (previous?.deleted) return undefined;
  if (next && previous?.version && next.version && next.version < previous.version) return undefined;
  const deltas = new Map<string, number>();
  tally(previous?.counters ?? [], -1, deltas);
  tally(next?.counters ?? [], 1, deltas);
  await addToCounters(tx, orgId, deltas);
  await tx.query(
    `INSERT INTO analytics.records (org_id, kind, id, counters, attrs, version, deleted) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (org_id, kind, id) DO UPDATE SET counters = EXCLUDED.counters, attrs = EXCLUDED.attrs, version = EXCLUDED.version, deleted = EXCLUDED.deleted`,
    [orgId, kind, id, next?.counters ?? [], JSON.stringify(next?.attrs ?? {}), next?.version ?? previous?.version ?? null, next === null],
  );
  return previous;
}

/** The named counters of an organization (absent ones are 0). */
export async function readCounters(db: Queryable, orgId: string, names: string[]): Promise<Map<string, number>> {
  const result = await db.query<{ name: string; value: string }>(`SELECT name, value FROM analytics.counters WHERE org_id = $1 AND name = ANY($2::text[])`, [orgId, names]);
  const values = new Map(names.map((name) => [name, 0]));
  for (const row of result.rows) values.set(row.name, Number(row.value));
  return values;
}
