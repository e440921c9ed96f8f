import { selectPage, type Queryable } from "@voiceops/platform";
import { ACTIVITY_COLUMNS, activityColumns, type ActivityRow } from "./activity-rows.js";
import type { CallRow } from "./call-rows.js";

interface CallListQuery {
  page: number;
  pageSize: number;
  channel: string | undefined;
  since: Date | undefined;
}

interface CallFilters {
  noTranscription: boolean;
  /** Calls with a known duration shorter than this many seconds. */
  maxDuration: number | undefined;
  since: Date | undefined;
}

/** What deleting calls removed: every activity of their sessions, and the recordings they named. */
export interface DeletedCalls {
  sessions: Map<string, string[]>;
  activities: number;
  recordings: string[];
}

const CALL_SELECT = `SELECT ${activityColumns("a.")}, c.session_id AS call_session_id, c.channel AS call_channel,
    (k.id IS NOT NULL) AS contact_known, k.name AS contact_name
  FROM comms.calls c
  JOIN comms.activities a ON a.id = c.activity_id
  LEFT JOIN comms.contacts k ON k.org_id = a.org_id AND k.id = a.contact_id`;

function deleted(rows: { id: string; session_id: string; recording: string | null }[]): DeletedCalls {
  const sessions = new Map<string, string[]>();
  const recordings: string[] = [];
  for (const row of rows) {
    sessions.set(row.session_id, [...(sessions.get(row.session_id) ?? []), row.id]);
    if (row.recording) recordings.push(row.recording);
  }
  return { sessions, activities: rows.length, recordings };
}

export class CallStore {
  async list(db: Queryable, orgId: string, query: CallListQuery): Promise<{ rows: CallRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["c.org_id = $1"];
    if (query.channel) {
      params.push(query.channel);
      where.push(`c.channel = $${params.length}`);
    }
    const counted = !query.since;
    if (query.since) {
      params.push(query.since);
      where.push(`c.occurred_at >= $${params.length}`);
    }
    const condition = where.join(" AND ");
    return selectPage<CallRow>(db, {
      // Without a time window the total is the per-channel count kept by the triggers.
      total: counted
        ? `SELECT coalesce(sum(n), 0)::int AS total FROM comms.call_counts c WHERE ${condition}`
        : `SELECT count(*)::int AS total FROM comms.calls c WHERE ${condition}`,
      rows: `${CALL_SELECT} WHERE ${condition} ORDER BY c.occurred_at DESC, c.session_id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, sessionId: string): Promise<CallRow | undefined> {
    const result = await db.query<CallRow>(
      `${CALL_SELECT} WHERE c.org_id = $1 AND c.session_id = $2`,
      [orgId, sessionId],
      { cacheable: true, prepared: true },
    );
    return result.rows[0];
  }

  /** Every activity of a session, oldest first. */
  async sessionActivities(db: Queryable, orgId: string, sessionId: string): Promise<ActivityRow[]> {
    const result = await db.query<ActivityRow>(
      `SELECT ${ACTIVITY_COLUMNS} FROM comms.activities WHERE org_id = $1 AND session_id = $2 ORDER BY occurred_at, id`,
      [orgId, sessionId],
    );
    return result.rows;
  }

  /** Deletes every activity of a session (its call goes with its CALL_ENDED activity). */
  async deleteSession(db: Queryable, orgId: string, sessionId: string): Promise<DeletedCalls> {
    const result = await db.query<{ id: string; session_id: string; recording: string | null }>(
      `DELETE FROM comms.activities WHERE org_id = $1 AND session_id = $2
       RETURNING id, session_id, CASE WHEN activity_type = 'CALL_ENDED' THEN metadata->>'recording' END AS recording`,
      [orgId, sessionId],
    );
    return deleted(result.rows);
  }

  /** Deletes the calls matching every filter, with every activity of their sessions. */
  async deleteMatching(db: Queryable, orgId: string, filters: CallFilters): Promise<DeletedCalls> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (filters.noTranscription) where.push("NOT has_transcription");
    if (filters.maxDuration !== undefined) {
      params.push(filters.maxDuration);
      where.push(`duration_seconds < $${params.length}`);
    }
    if (filters.since) {
      params.push(filters.since);
      where.push(`occurred_at >= $${params.length}`);
    }
    const result = await db.query<{ id: string; session_id: string; recording: string | null }>(
      `WITH doomed AS (SELECT session_id FROM comms.calls WHERE ${where.join(" AND ")})
       DELETE FROM comms.activities a USING doomed d WHERE a.org_id = $1 AND a.session_id = d.session_id
       RETURNING a.id, a.session_id, CASE WHEN a.activity_type = 'CALL_ENDED' THEN a.metadata->>'recording' END AS recording`,
      params,
    );
    return deleted(result.rows);
  }

  /**
   * Sets the recording of a session's call; returns the recording it named before, or undefined
   * when the session has no call.
   */
  async setRecording(
    db: Queryable,
    orgId: string,
    sessionId: string,
    recording: { key: string; contentType: string; bytes: number },
  ): Promise<{ previous: string | null } | undefined> {
    const found = await db.query<{ id: string; previous: string | null }>(
      `SELECT a.id, a.metadata->>'recording' AS previous FROM comms.calls c JOIN comms.activities a ON a.id = c.activity_id
       WHERE c.org_id = $1 AND c.session_id = $2 FOR UPDATE OF a`,
      [orgId, sessionId],
    );
    const call = found.rows[0];
    if (!call) return undefined;
    await db.query(
      `UPDATE comms.activities
       SET metadata = metadata || jsonb_build_object('recording', $3::text, 'recording_content_type', $4::text, 'recording_bytes', $5::bigint)
       WHERE org_id = $1 AND id = $2`,
      [orgId, call.id, recording.key, recording.contentType, recording.bytes],
    );
    return { previous: call.previous };
  }
}
