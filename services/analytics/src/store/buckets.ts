import type { Queryable } from "@voiceops/platform";
import { localDay, lockedSettings, type OrgSettings } from "./org-settings.js";

const QUARTER_HOUR_MS = 15 * 60 * 1000;

/** The quarter hour an instant falls in. */
export function quarterOf(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
}

type Values = Record<string, number>;

/**
 * Adds `value` to each metric at the quarter hour of `at` and on its local day in the
 * organization's zone. `values` may depend on the organization's settings (opening hours).
 */
export async function addToBuckets(
  tx: Queryable,
  orgId: string,
  at: Date,
  values: Values | ((settings: OrgSettings) => Values),
): Promise<void> {
  const settings = await lockedSettings(tx, orgId);
  const entries = Object.entries(typeof values === "function" ? values(settings) : values).filter(
    ([, value]) => value !== 0,
  );
  if (entries.length === 0) return;
  const metrics = entries.map(([metric]) => metric);
  const amounts = entries.map(([, value]) => value);
  await tx.query(
    `INSERT INTO analytics.buckets (org_id, metric, bucket, value)
     SELECT $1, metric, $2, value FROM unnest($3::text[], $4::bigint[]) AS v(metric, value)
     ON CONFLICT (org_id, metric, bucket) DO UPDATE SET value = analytics.buckets.value + EXCLUDED.value`,
    [orgId, quarterOf(at), metrics, amounts],
  );
  await tx.query(
    `INSERT INTO analytics.daily (org_id, metric, day, value)
     SELECT $1, metric, $2::date, value FROM unnest($3::text[], $4::bigint[]) AS v(metric, value)
     ON CONFLICT (org_id, metric, day) DO UPDATE SET value = analytics.daily.value + EXCLUDED.value`,
    [orgId, localDay(settings, at), metrics, amounts],
  );
}

/** Sums of the metrics per local day from `fromDay` to `toDay` (YYYY-MM-DD, inclusive). */
export async function sumPerDay(
  db: Queryable,
  orgId: string,
  metrics: string[],
  fromDay: string,
  toDay: string,
): Promise<Map<string, number>> {
  const result = await db.query<{ day: string; total: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(value) AS total FROM analytics.daily
     WHERE org_id = $1 AND metric = ANY($2::text[]) AND day BETWEEN $3::date AND $4::date GROUP BY day`,
    [orgId, metrics, fromDay, toDay],
  );
  return new Map(result.rows.map((row) => [row.day, Number(row.total)]));
}

/** Sums per metric over local days `fromDay` to `toDay` (inclusive). */
export async function sumDaysPerMetric(
  db: Queryable,
  orgId: string,
  metrics: string[],
  fromDay: string,
  toDay: string,
): Promise<Map<string, number>> {
  const result = await db.query<{ metric: string; total: string }>(
    `SELECT metric, sum(value) AS total FROM analytics.daily
     WHERE org_id = $1 AND metric = ANY($2::text[]) AND day BETWEEN $3::date AND $4::date GROUP BY metric`,
    [orgId, metrics, fromDay, toDay],
  );
  return new Map(result.rows.map((row) => [row.metric, Number(row.total)]));
}

/** Sums per metric of the quarter hours from the one holding `from` up to `to` (exclusive). */
export async function sumQuartersPerMetric(
  db: Queryable,
  orgId: string,
  metrics: string[],
  from: Date,
  to: Date,
): Promise<Map<string, number>> {
  if (to <= from) return new Map();
  const result = await db.query<{ metric: string; total: string }>(
    `SELECT metric, sum(value) AS total FROM analytics.buckets
     WHERE org_id = $1 AND metric = ANY($2::text[]) AND bucket >= $3 AND bucket < $4 GROUP BY metric`,
    [orgId, metrics, quarterOf(from), to],
  );
  return new Map(result.rows.map((row) => [row.metric, Number(row.total)]));
}

/** Adds the sums of `more` into `into`. */
export function addSums(into: Map<string, number>, more: Map<string, number>): Map<string, number> {
  for (const [key, value] of more) into.set(key, (into.get(key) ?? 0) + value);
  return into;
}
