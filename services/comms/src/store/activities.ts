import type { JsonObject } from "@bufbuild/protobuf";
import { newId, selectPage, type Queryable } from "@voiceops/platform";
import { ACTIVITY_COLUMNS, type ActivityRow } from "./activity-rows.js";

interface ActivityValues {
  activityType: string;
  description: string | null;
  contactId: string | null;
  serviceRequestId: string | null;
  sessionId: string | null;
  metadata: JsonObject;
  source: "api" | "internal";
  occurredAt: Date;
  createdAt: Date;
  customerPhone: string | null;
}

interface ActivityListQuery {
  page: number;
  pageSize: number;
  activityType: string | undefined;
  contactId: string | undefined;
  serviceRequestId: string | undefined;
  /** Only activities that occurred at or after this instant. */
  since: Date | undefined;
  lookups: boolean;
}

/** The columns of a call, as the call listing filters and sorts on them. */
interface CallValues {
  orgId: string;
  sessionId: string;
  activityId: string;
  channel: "phone" | "web";
  occurredAt: Date;
  durationSeconds: number | null;
  hasTranscription: boolean;
}

export class ActivityStore {
  async list(db: Queryable, orgId: string, query: ActivityListQuery): Promise<{ rows: ActivityRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    // Written as a literal, so the planner can use the index that leaves lookups out.
    if (query.activityType === undefined && !query.lookups) where.push("activity_type <> 'LOOKUP'");
    const filter = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    filter("activity_type", query.activityType);
    // Without a row filter besides the type, the total is read from the per-type counts.
    const counted = params.length;
    filter("contact_id", query.contactId);
    filter("service_request_id", query.serviceRequestId);
    if (query.since) {
      params.push(query.since);
      where.push(`occurred_at >= $${params.length}`);
    }
    const condition = where.join(" AND ");
    const total =
      params.length === counted
        ? `SELECT coalesce(sum(n), 0)::int AS total FROM comms.activity_counts WHERE ${condition}`
        : `SELECT count(*)::int AS total FROM comms.activities WHERE ${condition}`;
    return selectPage<ActivityRow>(db, {
      total,
      rows: `SELECT ${ACTIVITY_COLUMNS} FROM comms.activities WHERE ${condition} ORDER BY occurred_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<ActivityRow | undefined> {
    const result = await db.query<ActivityRow>(
      `SELECT ${ACTIVITY_COLUMNS} FROM comms.activities WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      { cacheable: true, prepared: true },
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, values: ActivityValues): Promise<ActivityRow> {
    const result = await db.query<ActivityRow>(
      `INSERT INTO comms.activities
         (id, org_id, activity_type, description, contact_id, service_request_id, session_id, metadata, source, occurred_at, created_at, customer_phone)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12) RETURNING ${ACTIVITY_COLUMNS}`,
      [
        newId(),
        orgId,
        values.activityType,
        values.description,
        values.contactId,
        values.serviceRequestId,
        values.sessionId,
        JSON.stringify(values.metadata),
        values.source,
        values.occurredAt,
        values.createdAt,
        values.customerPhone,
      ],
    );
    return result.rows[0] as ActivityRow;
  }

  /** Agent tool calls as LOOKUP activities (by the API, tool in metadata.tool), in one statement. */
  async insertLookups(
    db: Queryable,
    orgId: string,
    lookups: { tool: string; occurredAt: Date }[],
    createdAt: Date,
  ): Promise<{ id: string; tool: string; occurredAt: Date }[]> {
    const recorded = lookups.map((lookup) => ({ id: newId(), ...lookup }));
    await db.query(
      `INSERT INTO comms.activities
         (id, org_id, activity_type, description, contact_id, service_request_id, session_id, metadata, source, occurred_at, created_at, customer_phone)
       SELECT l.id, $2, 'LOOKUP', 'Agent tool ' || l.tool, NULL, NULL, NULL, jsonb_build_object('tool', l.tool), 'api', l.occurred_at, $3, NULL
       FROM unnest($1::uuid[], $4::text[], $5::timestamptz[]) AS l(id, tool, occurred_at)`,
      // Times as ISO text: pg writes each Date of an array with a JS formatter of its own.
      [
        recorded.map((l) => l.id),
        orgId,
        createdAt,
        recorded.map((l) => l.tool),
        recorded.map((l) => l.occurredAt.toISOString()),
      ],
    );
    return recorded;
  }

  /** Makes an activity the call of its session, replacing the session's previous call. */
  async setCall(db: Queryable, call: CallValues): Promise<void> {
    // Delete then insert (not update), so the per-channel counts follow a change of channel.
    await db.query(`DELETE FROM comms.calls WHERE org_id = $1 AND session_id = $2`, [call.orgId, call.sessionId]);
    await db.query(
      `INSERT INTO comms.calls (org_id, session_id, activity_id, channel, occurred_at, duration_seconds, has_transcription)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        call.orgId,
        call.sessionId,
        call.activityId,
        call.channel,
        call.occurredAt,
        call.durationSeconds,
        call.hasTranscription,
      ],
    );
  }

  /** Clears a link to another service's deleted record; returns how many activities changed. */
  async unlink(db: Queryable, orgId: string, column: "contact_id" | "service_request_id", id: string): Promise<number> {
    const result = await db.query(`UPDATE comms.activities SET ${column} = NULL WHERE org_id = $1 AND ${column} = $2`, [
      orgId,
      id,
    ]);
    return result.rowCount;
  }
}
