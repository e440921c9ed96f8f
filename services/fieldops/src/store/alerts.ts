import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, newId, type Queryable, selectPage } from "@voiceops/platform";
import {
  UrgentAlertResolutionStatus,
  UrgentAlertResolutionStatusSchema,
  UrgentAlertSchema,
  type UrgentAlert,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";

/** Every writable column: create and replace set them all. */
export const ALERT_FIELDS = [
  "title",
  "description",
  "location",
  "alert_type",
  "resolution_status",
  "contact_id",
  "service_request_id",
] as const;

export interface AlertValues {
  title: string | null;
  description: string | null;
  location: string;
  alert_type: string;
  resolution_status: string;
  contact_id: string | null;
  service_request_id: string | null;
}

export interface AlertRow extends AlertValues {
  id: string;
  org_id: string;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  "id, org_id, title, description, location, alert_type, resolution_status, contact_id, service_request_id, resolved_at, created_at, updated_at";

interface AlertListQuery {
  page: number;
  pageSize: number;
  /** Whole values, ignoring case. */
  location: string | undefined;
  alertType: string | undefined;
  resolutionStatus: string | undefined;
}

export class AlertStore {
  /** Newest first, ties by id. */
  async list(db: Queryable, orgId: string, query: AlertListQuery): Promise<{ rows: AlertRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    const filter = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`lower(${column}) = lower($${params.length})`);
    };
    filter("location", query.location);
    filter("alert_type", query.alertType);
    filter("resolution_status", query.resolutionStatus);
    const condition = where.join(" AND ");
    return selectPage<AlertRow>(db, {
      total: `SELECT count(*)::int AS total FROM fieldops.urgent_alerts WHERE ${condition}`,
      rows: `SELECT ${COLUMNS} FROM fieldops.urgent_alerts WHERE ${condition} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<AlertRow | undefined> {
    const result = await db.query<AlertRow>(
      `SELECT ${COLUMNS} FROM fieldops.urgent_alerts WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      { cacheable: true, prepared: true },
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, values: AlertValues, now: Date): Promise<AlertRow> {
    const result = await db.query<AlertRow>(
      `INSERT INTO fieldops.urgent_alerts (id, org_id, title, description, location, alert_type, resolution_status, contact_id, service_request_id, resolved_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $7 = 'resolved' THEN $10::timestamptz END, $10, $10)
       RETURNING ${COLUMNS}`,
      [
        newId(),
        orgId,
        values.title,
        values.description,
        values.location,
        values.alert_type,
        values.resolution_status,
        values.contact_id,
        values.service_request_id,
        now,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  /** Replaces every writable column; resolved_at is stamped on becoming resolved, kept while resolved, else cleared. */
  async replace(
    db: Queryable,
    orgId: string,
    id: string,
    values: AlertValues,
    now: Date,
  ): Promise<AlertRow | undefined> {
    const result = await db.query<AlertRow>(
      `UPDATE fieldops.urgent_alerts
       SET title = $3, description = $4, location = $5, alert_type = $6, resolution_status = $7, contact_id = $8,
           service_request_id = $9, updated_at = $10,
           resolved_at = CASE WHEN $7 <> 'resolved' THEN NULL WHEN resolution_status = 'resolved' THEN resolved_at ELSE $10::timestamptz END
       WHERE org_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [
        orgId,
        id,
        values.title,
        values.description,
        values.location,
        values.alert_type,
        values.resolution_status,
        values.contact_id,
        values.service_request_id,
        now,
      ],
    );
    return result.rows[0];
  }

  /** Deletes an alert; resolves its stored id, or undefined when it is not in the org. */
  async delete(db: Queryable, orgId: string, id: string): Promise<string | undefined> {
    const result = await db.query<{ id: string }>(
      `DELETE FROM fieldops.urgent_alerts WHERE org_id = $1 AND id = $2 RETURNING id`,
      [orgId, id],
    );
    return result.rows[0]?.id;
  }

  /** Clears a link to a record another service deleted; returns the alerts changed. */
  async unlink(
    db: Queryable,
    orgId: string,
    column: "contact_id" | "service_request_id",
    id: string,
    now: Date,
  ): Promise<AlertRow[]> {
    const result = await db.query<AlertRow>(
      `UPDATE fieldops.urgent_alerts SET ${column} = NULL, updated_at = $3 WHERE org_id = $1 AND ${column} = $2 RETURNING ${COLUMNS}`,
      [orgId, id, now],
    );
    return result.rows;
  }
}

export function toUrgentAlert(row: AlertRow): UrgentAlert {
  return create(UrgentAlertSchema, {
    id: row.id,
    title: row.title ?? undefined,
    description: row.description ?? undefined,
    location: row.location,
    alertType: row.alert_type,
    resolutionStatus: (enumFromJson(UrgentAlertResolutionStatusSchema, row.resolution_status) ??
      UrgentAlertResolutionStatus.UNSPECIFIED) as UrgentAlertResolutionStatus,
    contactId: row.contact_id ?? undefined,
    serviceRequestId: row.service_request_id ?? undefined,
    resolvedAt: row.resolved_at ? timestampFromDate(row.resolved_at) : undefined,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
