import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { newId, type Queryable } from "@voiceops/platform";
import { AppointmentTypeSchema, type AppointmentType } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";

export interface AppointmentTypeRow {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  duration_minutes: number;
  /** Null: step by the duration. */
  slot_interval_minutes: number | null;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  min_notice_minutes: number;
  max_days_ahead: number;
  required_skills: string[];
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The writable columns; update SQL is built only from these names, never from input. */
export const APPOINTMENT_TYPE_FIELDS = [
  "name",
  "description",
  "duration_minutes",
  "slot_interval_minutes",
  "buffer_before_minutes",
  "buffer_after_minutes",
  "min_notice_minutes",
  "max_days_ahead",
  "required_skills",
  "is_active",
] as const;
export type AppointmentTypeField = (typeof APPOINTMENT_TYPE_FIELDS)[number];
export type AppointmentTypeValues = Pick<AppointmentTypeRow, AppointmentTypeField>;

const COLUMNS = `id, org_id, ${APPOINTMENT_TYPE_FIELDS.join(", ")}, created_at, updated_at`;

export class AppointmentTypeStore {
  /** Not deleted, by name (case-insensitive), ties by id; only active ones unless asked. */
  async list(db: Queryable, orgId: string, includeInactive: boolean): Promise<AppointmentTypeRow[]> {
    const result = await db.query<AppointmentTypeRow>(
      `SELECT ${COLUMNS} FROM fieldops.appointment_types
       WHERE org_id = $1 AND deleted_at IS NULL ${includeInactive ? "" : "AND is_active"}
       ORDER BY lower(name) ASC, id ASC`,
      [orgId],
    );
    return result.rows;
  }

  /** A type that is not deleted. */
  async get(
    db: Queryable,
    orgId: string,
    id: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<AppointmentTypeRow | undefined> {
    const result = await db.query<AppointmentTypeRow>(
      `SELECT ${COLUMNS} FROM fieldops.appointment_types WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL ${options.forUpdate ? "FOR UPDATE" : ""}`,
      [orgId, id],
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, values: AppointmentTypeValues, now: Date): Promise<AppointmentTypeRow> {
    const result = await db.query<AppointmentTypeRow>(
      `INSERT INTO fieldops.appointment_types (id, org_id, ${APPOINTMENT_TYPE_FIELDS.join(", ")}, created_at, updated_at)
       VALUES ($1, $2, ${APPOINTMENT_TYPE_FIELDS.map((_, index) => `$${index + 3}`).join(", ")}, $13, $13)
       RETURNING ${COLUMNS}`,
      [newId(), orgId, ...APPOINTMENT_TYPE_FIELDS.map((field) => values[field]), now],
    );
    const row = result.rows[0];
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  async update(
    db: Queryable,
    orgId: string,
    id: string,
    values: AppointmentTypeValues,
    now: Date,
  ): Promise<AppointmentTypeRow | undefined> {
    const result = await db.query<AppointmentTypeRow>(
      `UPDATE fieldops.appointment_types
       SET ${APPOINTMENT_TYPE_FIELDS.map((field, index) => `${field} = $${index + 3}`).join(", ")}, updated_at = $13
       WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
      [orgId, id, ...APPOINTMENT_TYPE_FIELDS.map((field) => values[field]), now],
    );
    return result.rows[0];
  }

  /** Marks a type deleted; false when there was none to delete. */
  async delete(db: Queryable, orgId: string, id: string, now: Date): Promise<boolean> {
    const result = await db.query(
      `UPDATE fieldops.appointment_types SET deleted_at = $3, is_active = false, updated_at = $3 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [orgId, id, now],
    );
    return result.rowCount > 0;
  }
}

/** The step between slot starts. */
export function slotInterval(row: Pick<AppointmentTypeRow, "slot_interval_minutes" | "duration_minutes">): number {
  return row.slot_interval_minutes ?? row.duration_minutes;
}

export function toAppointmentType(row: AppointmentTypeRow): AppointmentType {
  return create(AppointmentTypeSchema, {
    id: row.id,
    name: row.name,
    description: row.description ?? undefined,
    durationMinutes: row.duration_minutes,
    slotIntervalMinutes: slotInterval(row),
    bufferBeforeMinutes: row.buffer_before_minutes,
    bufferAfterMinutes: row.buffer_after_minutes,
    minNoticeMinutes: row.min_notice_minutes,
    maxDaysAhead: row.max_days_ahead,
    requiredSkills: row.required_skills ?? [],
    isActive: row.is_active,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
