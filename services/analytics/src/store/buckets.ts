import type { Queryable } from "@voiceops/platform";
import { localDay, lockedSettings, type OrgSettings } from "./org-settings.js";

const QUARTER_HOUR_MS = 15 * 60 * 1000;

/** The quarter hour an instant falls in. */
export function quarterOf(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
}

type Values = Record<string, number>;

/** What one fact adds: `values` at the instant `at` (they may depend on the organization's opening hours). */
export interface BucketAddition {
  at: Date;
  values: Values | ((settings: OrgSettings) => Values);
}

/**
 * Adds `value` to each metric at the quarter hour of `at` and on its local day in the
 * organization's zone. `values` may depend on the organization's settings (opening hours).
 */
export function addToBuckets(
  tx: Queryable,
  orgId: string,
  at: Date,
  values: Values | ((settings: OrgSettings) => Values),
): Promise<void> {
  return addAllToBuckets(tx, orgId, [{ at, values }]);
}

/**
 * Several additions of one organization with the effect of addToBuckets on each in turn, in the
 * statements of one: the settings' lock (two) and one upsert each for the quarter hours and the
 * days, whose amounts are summed first (an upsert may not touch a row twice) and written in key
 * order.
 */
export async function addAllToBuckets(tx: Queryable, orgId: string, additions: BucketAddition[]): Promise<void> {
  if (additions.length === 0) return;
  const settings = await lockedSettings(tx, orgId);
  const quarters: SumRows = new Map();
  const days: SumRows = new Map();
  const add = (into: SumRows, metric: string, key: string, value: number) => {
    const id = `${metric}\u0000${key}`;
    const row = into.get(id);
    if (row) row.value += value;
    else into.set(id, { metric, key, value });
  };
  // A quarter hour's day is the local day it starts on, as the re-sum of the days counts it; the
  // zone arithmetic is done once per quarter hour, not once per addition.
  const dayOfQuarter = new Map<number, { quarter: string; day: string }>();
  for (const { at, values } of additions) {
    const start = quarterOf(at);
    let bucket = dayOfQuarter.get(start.getTime());
    if (!bucket) {
      bucket = { quarter: start.toISOString(), day: localDay(settings, start) };
      dayOfQuarter.set(start.getTime(), bucket);
    }
    const { quarter, day } = bucket;
    for (const [metric, value] of Object.entries(typeof values === "function" ? values(settings) : values)) {
      add(quarters, metric, quarter, value);
      add(days, metric, day, value);
    }
  }
  await upsertSums(tx, ADD_TO_QUARTERS, orgId, quarters);
  await upsertSums(tx, ADD_TO_DAYS, orgId, days);
}

type SumRows = Map<string, { metric: string; key: string; value: number }>;

const ADD_TO_QUARTERS = `INSERT INTO analytics.buckets (org_id, metric, bucket, value)
  SELECT $1, metric, bucket, value FROM unnest($2::text[], $3::timestamptz[], $4::bigint[]) AS v(metric, bucket, value)
  ON CONFLICT (org_id, metric, bucket) DO UPDATE SET value = analytics.buckets.value + EXCLUDED.value`;
const ADD_TO_DAYS = `INSERT INTO analytics.daily (org_id, metric, day, value)
  SELECT $1, metric, day, value FROM unnest($2::text[], $3::date[], $4::bigint[]) AS v(metric, day, value)
  ON CONFLICT (org_id, metric, day) DO UPDATE SET value = analytics.daily.value + EXCLUDED.value`;

/** Adds the non-zero sums to their rows, in key order. */
async function upsertSums(tx: Queryable, sql: string, orgId: string, rows: SumRows): Promise<void> {
  const sorted = [...rows.values()]
    .filter((row) => row.value !== 0)
    .sort((a, b) => (a.metric === b.metric ? (a.key < b.key ? -1 : 1) : a.metric < b.metric ? -1 : 1));
  if (sorted.length === 0) return;
  await tx.query(sql, [
    orgId,
    sorted.map((row) => row.metric),
    sorted.map((row) => row.key),
    sorted.map((row) => row.value),
  ]);
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
