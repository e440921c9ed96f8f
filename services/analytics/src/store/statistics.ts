import type { Queryable } from "@voiceops/platform";

// The statistics routes' reads of the read models that are not counters or day sums.

/** Technicians on call now: the on-call flag, or a scheduled shift covering now. */
export async function techniciansOnCall(db: Queryable, orgId: string, now: Date): Promise<number> {
  const result = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT id FROM analytics.records WHERE org_id = $1 AND kind = 'technician' AND NOT deleted AND attrs->>'on_call' = 'true'
       UNION
       SELECT technician_id::text FROM analytics.upcoming WHERE org_id = $1 AND type = 'on_call_shift' AND at <= $2 AND ends_at > $2
     ) AS on_call`,
    [orgId, now],
  );
  return result.rows[0]?.n ?? 0;
}

export async function upcomingCount(
  db: Queryable,
  orgId: string,
  type: string,
  from: Date,
  to: Date | null,
): Promise<number> {
  const result = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM analytics.upcoming WHERE org_id = $1 AND type = $2 AND at >= $3 AND ($4::timestamptz IS NULL OR at < $4)`,
    [orgId, type, from, to],
  );
  return result.rows[0]?.n ?? 0;
}

/** Contacts with a live portal token. */
export async function contactsWithPortalTokens(db: Queryable, orgId: string, now: Date): Promise<number> {
  const result = await db.query<{ n: number }>(
    `SELECT count(DISTINCT contact_id)::int AS n FROM analytics.portal_tokens WHERE org_id = $1 AND NOT revoked AND expires_at > $2`,
    [orgId, now],
  );
  return result.rows[0]?.n ?? 0;
}

interface UpcomingRow {
  type: string;
  ref_id: string;
  at: Date;
  title: string;
  contact_id: string | null;
  /** Rows in the whole window. */
  total: number;
}

/** The first `limit` items due in [now, until), in order. */
export async function upcomingPage(
  db: Queryable,
  orgId: string,
  now: Date,
  until: Date,
  limit: number,
): Promise<UpcomingRow[]> {
  const result = await db.query<UpcomingRow>(
    // A call handed to the voice runtime is due now until its result comes, however long ago it was due.
    `SELECT type, ref_id, at, title, contact_id, count(*) OVER ()::int AS total FROM (
       SELECT type, ref_id, CASE WHEN type = 'campaign_call' THEN greatest(at, $2) ELSE at END AS at, title, contact_id
       FROM analytics.upcoming WHERE org_id = $1 AND (at >= $2 OR type = 'campaign_call') AND at < $3
     ) AS due
     ORDER BY at, type, ref_id LIMIT $4`,
    [orgId, now, until, limit],
  );
  return result.rows;
}
