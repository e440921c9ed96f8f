import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, newId, type Queryable } from "@voiceops/platform";
import {
  OnCallScheduleSchema,
  OnCallScheduleStatus,
  OnCallScheduleStatusSchema,
  type OnCallSchedule,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { technicianSummary, withTechnician, type WithTechnician } from "./rows.js";

export interface ScheduleRow extends WithTechnician {
  id: string;
  org_id: string;
  technician_id: string;
  start_at: Date;
  end_at: Date;
  status: string;
  notes: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ScheduleValues {
  technician_id: string;
  start_at: Date;
  end_at: Date;
  notes: string | null;
}

const COLUMNS = "s.id, s.org_id, s.technician_id, s.start_at, s.end_at, s.status, s.notes, s.created_at, s.updated_at";

/** Schedule rows of a statement (a SELECT, or a write RETURNING *), with their technician. */
function schedulesOf(db: Queryable, statement: string, params: unknown[], orderBy?: string): Promise<ScheduleRow[]> {
  return withTechnician<ScheduleRow>(db, { alias: "s", columns: COLUMNS, statement, params, orderBy });
}

export class ScheduleStore {
  /** Scheduled schedules overlapping [from, to) (to = none: no end; to = from: covering that instant), by start. */
  async list(
    db: Queryable,
    orgId: string,
    query: { from: Date; to: Date | undefined; technicianId: string | undefined },
  ): Promise<ScheduleRow[]> {
    const params: unknown[] = [orgId, query.from];
    const where = ["s.org_id = $1", "s.status = 'scheduled'", "s.end_at > $2"];
    if (query.to !== undefined) {
      params.push(query.to);
      // An empty range [t, t) stands for the instant t: the schedules covering it.
      where.push(`s.start_at ${query.to.getTime() === query.from.getTime() ? "<=" : "<"} $${params.length}`);
    }
    if (query.technicianId !== undefined) {
      params.push(query.technicianId);
      where.push(`s.technician_id = $${params.length}`);
    }
    return schedulesOf(
      db,
      `SELECT * FROM fieldops.on_call_schedules s WHERE ${where.join(" AND ")}`,
      params,
      "s.start_at ASC, s.end_at ASC, s.id ASC",
    );
  }

  async get(
    db: Queryable,
    orgId: string,
    id: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<ScheduleRow | undefined> {
    const [row] = await schedulesOf(
      db,
      `SELECT * FROM fieldops.on_call_schedules WHERE org_id = $1 AND id = $2 ${options.forUpdate ? "FOR UPDATE" : ""}`,
      [orgId, id],
    );
    return row;
  }

  /** The id of a scheduled schedule of the technician overlapping [start, end), other than `exceptId`. */
  async findOverlap(
    db: Queryable,
    orgId: string,
    technicianId: string,
    start: Date,
    end: Date,
    exceptId?: string,
  ): Promise<string | undefined> {
    const result = await db.query<{ id: string }>(
      `SELECT id FROM fieldops.on_call_schedules
       WHERE org_id = $1 AND technician_id = $2 AND status = 'scheduled' AND start_at < $4 AND end_at > $3
         AND ($5::uuid IS NULL OR id <> $5::uuid)
       ORDER BY start_at ASC LIMIT 1`,
      [orgId, technicianId, start, end, exceptId ?? null],
    );
    return result.rows[0]?.id;
  }

  async insert(db: Queryable, orgId: string, values: ScheduleValues, now: Date): Promise<ScheduleRow> {
    const [row] = await schedulesOf(
      db,
      `INSERT INTO fieldops.on_call_schedules (id, org_id, technician_id, start_at, end_at, status, notes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'scheduled', $6, $7, $7) RETURNING *`,
      [newId(), orgId, values.technician_id, values.start_at, values.end_at, values.notes, now],
    );
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  async update(
    db: Queryable,
    orgId: string,
    id: string,
    values: ScheduleValues,
    now: Date,
  ): Promise<ScheduleRow | undefined> {
    const [row] = await schedulesOf(
      db,
      `UPDATE fieldops.on_call_schedules SET technician_id = $3, start_at = $4, end_at = $5, notes = $6, updated_at = $7
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id, values.technician_id, values.start_at, values.end_at, values.notes, now],
    );
    return row;
  }

  /** Cancels a scheduled schedule; undefined when it is not scheduled (or not in the org). */
  async cancel(db: Queryable, orgId: string, id: string, now: Date): Promise<ScheduleRow | undefined> {
    const [row] = await schedulesOf(
      db,
      `UPDATE fieldops.on_call_schedules SET status = 'cancelled', updated_at = $3
       WHERE org_id = $1 AND id = $2 AND status = 'scheduled' RETURNING *`,
      [orgId, id, now],
    );
    return row;
  }

  /** Cancels the technician's scheduled schedules that have not ended by `now`. */
  async cancelUnended(db: Queryable, orgId: string, technicianId: string, now: Date): Promise<ScheduleRow[]> {
    return schedulesOf(
      db,
      `UPDATE fieldops.on_call_schedules SET status = 'cancelled', updated_at = $3
       WHERE org_id = $1 AND technician_id = $2 AND status = 'scheduled' AND end_at > $3 RETURNING *`,
      [orgId, technicianId, now],
    );
  }
}

export function toOnCallSchedule(row: ScheduleRow): OnCallSchedule {
  return create(OnCallScheduleSchema, {
    id: row.id,
    technicianId: row.technician_id,
    technician: technicianSummary(row),
    startAt: timestampFromDate(row.start_at),
    endAt: timestampFromDate(row.end_at),
    status: (enumFromJson(OnCallScheduleStatusSchema, row.status) ??
      OnCallScheduleStatus.UNSPECIFIED) as OnCallScheduleStatus,
    notes: row.notes ?? undefined,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
