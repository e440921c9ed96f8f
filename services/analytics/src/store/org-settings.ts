import {
  DEFAULT_BUSINESS_HOURS,
  encodeBusinessHours,
  isOpenAt,
  type Database,
  type Queryable,
  type WeeklyHours,
} from "@voiceops/platform";
import { DateTime } from "luxon";
import { Metric } from "../model/names.js";

/** What the day sums depend on: the organization's time zone and opening hours. */
export interface OrgSettings {
  timezone: string;
  hours: WeeklyHours;
}

const DEFAULT_SETTINGS: OrgSettings = { timezone: "UTC", hours: DEFAULT_BUSINESS_HOURS };

/**
 * The settings the day sums of an organization are kept in, held still until the transaction
 * ends (a change of zone re-sums the days and waits for this transaction, and the other way).
 */
export async function lockedSettings(tx: Queryable, orgId: string): Promise<OrgSettings> {
  await tx.query(
    `INSERT INTO analytics.org_settings (org_id, timezone, business_hours) VALUES ($1, $2, $3) ON CONFLICT (org_id) DO NOTHING`,
    [orgId, DEFAULT_SETTINGS.timezone, JSON.stringify(DEFAULT_SETTINGS.hours)],
  );
  const result = await tx.query<{ timezone: string; business_hours: WeeklyHours }>(
    `SELECT timezone, business_hours FROM analytics.org_settings WHERE org_id = $1 FOR SHARE`,
    [orgId],
  );
  const row = result.rows[0];
  return row ? { timezone: row.timezone, hours: row.business_hours } : DEFAULT_SETTINGS;
}

/** A spelling of the settings that does not depend on key order (jsonb reorders keys). */
function keyOf(settings: OrgSettings): string {
  return `${settings.timezone}|${encodeBusinessHours(settings.hours)}`;
}

/**
 * Keeps each organization's day sums in the zone and hours its calls carry: the first read after
 * a change sums the days again from the quarter hours (once; later reads find them settled).
 */
export class SettingsKeeper {
  private readonly settled = new Map<string, string>();

  constructor(private readonly db: Database) {}

  async settle(orgId: string, wanted: OrgSettings): Promise<void> {
    const key = keyOf(wanted);
    if (this.settled.get(orgId) === key) return;
    const stored = await this.db.query<{ timezone: string; business_hours: WeeklyHours }>(
      `SELECT timezone, business_hours FROM analytics.org_settings WHERE org_id = $1`,
      [orgId],
    );
    const row = stored.rows[0];
    if (!row || keyOf({ timezone: row.timezone, hours: row.business_hours }) !== key) await this.resum(orgId, wanted);
    this.settled.set(orgId, key);
  }

  private async resum(orgId: string, settings: OrgSettings): Promise<void> {
    await this.db.transaction(async (tx) => {
      // The upsert locks the row: consumers adding to this organization's days wait, and so does this.
      await tx.query(
        `INSERT INTO analytics.org_settings (org_id, timezone, business_hours) VALUES ($1, $2, $3)
         ON CONFLICT (org_id) DO UPDATE SET timezone = EXCLUDED.timezone, business_hours = EXCLUDED.business_hours`,
        [orgId, settings.timezone, JSON.stringify(settings.hours)],
      );
      const calls = await tx.query<{ bucket: Date; value: string }>(
        `SELECT bucket, value FROM analytics.buckets WHERE org_id = $1 AND metric = $2`,
        [orgId, Metric.activity("CALL_ENDED")],
      );
      const afterHours = calls.rows.filter((row) => !isOpenAt(settings, row.bucket));
      await tx.query(`DELETE FROM analytics.buckets WHERE org_id = $1 AND metric = $2`, [
        orgId,
        Metric.callsAfterHours,
      ]);
      await tx.query(
        `INSERT INTO analytics.buckets (org_id, metric, bucket, value) SELECT $1, $2, b, v FROM unnest($3::timestamptz[], $4::bigint[]) AS x(b, v)`,
        [orgId, Metric.callsAfterHours, afterHours.map((row) => row.bucket), afterHours.map((row) => row.value)],
      );
      await tx.query(`DELETE FROM analytics.daily WHERE org_id = $1`, [orgId]);
      await tx.query(
        `INSERT INTO analytics.daily (org_id, metric, day, value)
         SELECT org_id, metric, (bucket AT TIME ZONE $2)::date, sum(value) FROM analytics.buckets WHERE org_id = $1 GROUP BY 1, 2, 3`,
        [orgId, settings.timezone],
      );
    });
  }
}

/** The local date of an instant in the organization's zone. */
export function localDay(settings: OrgSettings, at: Date): string {
  return DateTime.fromJSDate(at, { zone: settings.timezone }).toISODate() ?? "";
}
