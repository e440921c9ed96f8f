import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumToJson, newId, selectPage, type Queryable } from "@voiceops/platform";
import {
  AppointmentSchema,
  AppointmentStatus,
  AppointmentStatusSchema,
  type Appointment,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { ACTIVE_DISPATCH } from "./technicians.js";

export interface AppointmentRow {
  id: string;
  org_id: string;
  appointment_type_id: string;
  appointment_type_name: string;
  contact_id: string;
  contact_name: string | null;
  contact_phone: string | null;
  technician_id: string | null;
  service_request_id: string | null;
  start_at: Date;
  end_at: Date;
  /** API spelling: scheduled, confirmed, completed, cancelled, no_show. */
  status: string;
  notes: string | null;
  cancel_reason: string | null;
  rescheduled_from_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewAppointment {
  appointment_type_id: string;
  contact_id: string;
  contact_name: string | null;
  contact_phone: string | null;
  technician_id: string | null;
  service_request_id: string | null;
  start_at: Date;
  end_at: Date;
  /** What the appointment holds of its resource: its time widened by the type's buffers. */
  held_from: Date;
  held_to: Date;
  notes: string | null;
  rescheduled_from_id: string | null;
}

const ACTIVE = "status IN ('scheduled', 'confirmed')";

const COLUMNS =
  "a.id, a.org_id, a.appointment_type_id, t.name AS appointment_type_name, a.contact_id, a.contact_name, a.contact_phone, a.technician_id, a.service_request_id, a.start_at, a.end_at, a.status, a.notes, a.cancel_reason, a.rescheduled_from_id, a.created_at, a.updated_at";

/** Appointment rows of a statement (a SELECT, or a write RETURNING *) named `a`, with their type's name. */
async function appointmentsOf(
  db: Queryable,
  statement: string,
  params: unknown[],
  orderBy?: string,
): Promise<AppointmentRow[]> {
  const result = await db.query<AppointmentRow>(
    `WITH a AS (${statement})
     SELECT ${COLUMNS} FROM a JOIN fieldops.appointment_types t ON t.id = a.appointment_type_id
     ${orderBy ? `ORDER BY ${orderBy}` : ""}`,
    params,
  );
  return result.rows;
}

/** The resources and busy time check-availability and booking work from, read in one statement. */
export interface SchedulingSnapshot {
  /** Whether the organization has any technician at all (else the business is the resource). */
  hasTechnicians: boolean;
  /** Whether the asked technician (SnapshotQuery.technicianId) is one of the organization's, whatever their status. */
  askedTechnicianExists: boolean;
  /** Active technicians having every required skill (only the asked one, when one is), by name. */
  technicians: { id: string; name: string }[];
  /** Active appointments of those technicians (or of the business: technician_id null) whose held time meets the range; epoch ms. */
  appointments: { technician_id: string | null; heldFrom: number; heldTo: number; start: number }[];
  /** Live slot holds of those technicians (or of the business) whose held time meets the range; epoch ms. */
  holds: { technician_id: string | null; heldFrom: number; heldTo: number }[];
  /** Active dispatches of those technicians: who and since when (epoch ms). */
  dispatches: { technician_id: string; since: number }[];
}

interface SnapshotQuery {
  from: Date;
  to: Date;
  /** Holds expiring by now do not count. */
  now: Date;
  requiredSkills: string[];
  technicianId?: string;
  /** An appointment being rescheduled: its own time does not count as busy. */
  ignoreAppointmentId?: string;
}

interface SnapshotRow {
  kind: "technician" | "any_technician" | "asked_technician" | "appointments" | "holds" | "dispatch";
  /** The technician (null: the business itself). */
  resource: string | null;
  name: string | null;
  since_ms: number | string | null;
  /** held-from,held-to,start,... in epoch ms (holds: held-from,held-to,...). */
  spans: string | null;
}

interface AppointmentListQuery {
  page: number;
  pageSize: number;
  from: Date;
  to: Date | undefined;
  status?: string;
  contactId?: string;
  technicianId?: string;
}

export class AppointmentStore {
  /**
   * Technicians, busy appointments and active dispatches in ONE round trip (a UNION ALL of
   * index scans), for the slot arithmetic that follows in memory.
   */
  async snapshot(db: Queryable, orgId: string, query: SnapshotQuery): Promise<SchedulingSnapshot> {
    // Instants come back as whole epoch milliseconds, and a resource's appointments as one row
    // (a comma-separated text of held-from, held-to, start triples): a few rows with one string
    // each parse far faster than thousands of rows. Held time rounds outwards, never shrinking.
    const result = await db.query<SnapshotRow>(
      `WITH techs AS (
         SELECT p.id, p.name FROM fieldops.service_providers p
         WHERE p.org_id = $1 AND p.status = 'active' AND ($5::uuid IS NULL OR p.id = $5::uuid)
           AND NOT EXISTS (
             SELECT 1 FROM unnest($4::text[]) AS wanted
             WHERE NOT EXISTS (SELECT 1 FROM unnest(p.skills) AS skill WHERE lower(skill) = lower(wanted))))
       SELECT 'technician' AS kind, t.id AS resource, t.name, NULL::float8 AS since_ms, NULL::text AS spans FROM techs t
       UNION ALL
       SELECT 'any_technician', NULL, NULL, NULL, NULL
         WHERE EXISTS (SELECT 1 FROM fieldops.service_providers WHERE org_id = $1)
       UNION ALL
       SELECT 'asked_technician', NULL, NULL, NULL, NULL
         WHERE EXISTS (SELECT 1 FROM fieldops.service_providers WHERE org_id = $1 AND id = $5::uuid)
       UNION ALL
       SELECT 'appointments', a.technician_id, NULL, NULL,
              string_agg(concat_ws(',', floor(extract(epoch FROM lower(a.blocked)) * 1000)::int8, ceil(extract(epoch FROM upper(a.blocked)) * 1000)::int8,
                floor(extract(epoch FROM a.start_at) * 1000)::int8), ',' ORDER BY lower(a.blocked))
         FROM fieldops.appointments a
         WHERE a.org_id = $1 AND a.${ACTIVE} AND a.blocked && tstzrange($2, $3) AND ($6::uuid IS NULL OR a.id <> $6::uuid)
           AND (a.technician_id IS NULL OR a.technician_id IN (SELECT id FROM techs))
         GROUP BY a.technician_id
       UNION ALL
       SELECT 'holds', h.technician_id, NULL, NULL,
              string_agg(concat_ws(',', floor(extract(epoch FROM lower(h.blocked)) * 1000)::int8, ceil(extract(epoch FROM upper(h.blocked)) * 1000)::int8), ',')
         FROM fieldops.slot_holds h
         WHERE h.org_id = $1 AND h.blocked && tstzrange($2, $3) AND h.expires_at > $7
           AND (h.technician_id IS NULL OR h.technician_id IN (SELECT id FROM techs))
         GROUP BY h.technician_id
       UNION ALL
       SELECT 'dispatch', d.technician_id, NULL, extract(epoch FROM d.created_at) * 1000, NULL
         FROM fieldops.dispatches d
         WHERE d.org_id = $1 AND d.${ACTIVE_DISPATCH} AND d.technician_id IN (SELECT id FROM techs)`,
      [
        orgId,
        query.from,
        query.to,
        query.requiredSkills,
        query.technicianId ?? null,
        query.ignoreAppointmentId ?? null,
        query.now,
      ],
    );
    const snapshot: SchedulingSnapshot = {
      hasTechnicians: false,
      askedTechnicianExists: false,
      technicians: [],
      appointments: [],
      holds: [],
      dispatches: [],
    };
    for (const row of result.rows) {
      if (row.kind === "technician") snapshot.technicians.push({ id: row.resource as string, name: row.name ?? "" });
      else if (row.kind === "any_technician") snapshot.hasTechnicians = true;
      else if (row.kind === "asked_technician") snapshot.askedTechnicianExists = true;
      else if (row.kind === "appointments") {
        const numbers = (row.spans ?? "").split(",");
        for (let i = 0; i + 2 < numbers.length; i += 3) {
          snapshot.appointments.push({
            technician_id: row.resource,
            heldFrom: Number(numbers[i]),
            heldTo: Number(numbers[i + 1]),
            start: Number(numbers[i + 2]),
          });
        }
      } else if (row.kind === "holds") {
        const numbers = (row.spans ?? "").split(",");
        for (let i = 0; i + 1 < numbers.length; i += 2) {
          snapshot.holds.push({
            technician_id: row.resource,
            heldFrom: Number(numbers[i]),
            heldTo: Number(numbers[i + 1]),
          });
        }
      } else snapshot.dispatches.push({ technician_id: row.resource as string, since: Number(row.since_ms) });
    }
    snapshot.technicians.sort(
      (a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || (a.id < b.id ? -1 : 1),
    );
    return snapshot;
  }

  async get(
    db: Queryable,
    orgId: string,
    id: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<AppointmentRow | undefined> {
    const [row] = await appointmentsOf(
      db,
      `SELECT * FROM fieldops.appointments WHERE org_id = $1 AND id = $2 ${options.forUpdate ? "FOR UPDATE" : ""}`,
      [orgId, id],
    );
    return row;
  }

  /** Inserts an active appointment; the exclusion constraint refuses an overlap (23P01). */
  async insert(db: Queryable, orgId: string, values: NewAppointment, now: Date): Promise<AppointmentRow> {
    const [row] = await appointmentsOf(
      db,
      `INSERT INTO fieldops.appointments (id, org_id, appointment_type_id, contact_id, contact_name, contact_phone, technician_id, service_request_id,
         start_at, end_at, blocked, status, notes, rescheduled_from_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, tstzrange($11, $12), 'scheduled', $13, $14, $15, $15) RETURNING *`,
      [
        newId(),
        orgId,
        values.appointment_type_id,
        values.contact_id,
        values.contact_name,
        values.contact_phone,
        values.technician_id,
        values.service_request_id,
        values.start_at,
        values.end_at,
        values.held_from,
        values.held_to,
        values.notes,
        values.rescheduled_from_id,
        now,
      ],
    );
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  async setStatus(
    db: Queryable,
    orgId: string,
    id: string,
    status: string,
    cancelReason: string | null,
    now: Date,
  ): Promise<AppointmentRow | undefined> {
    const [row] = await appointmentsOf(
      db,
      `UPDATE fieldops.appointments SET status = $3, cancel_reason = $4, updated_at = $5 WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id, status, cancelReason, now],
    );
    return row;
  }

  /** Soonest first, ties by id: appointments starting in [from, to). */
  async list(
    db: Queryable,
    orgId: string,
    query: AppointmentListQuery,
  ): Promise<{ rows: AppointmentRow[]; total: number }> {
    const params: unknown[] = [orgId, query.from];
    const where = ["a.org_id = $1", "a.start_at >= $2"];
    const filter = (condition: string, value: unknown) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${condition} $${params.length}`);
    };
    filter("a.start_at <", query.to);
    filter("a.status =", query.status);
    filter("a.contact_id =", query.contactId);
    filter("a.technician_id =", query.technicianId);
    const filters = where.join(" AND ");
    return selectPage<AppointmentRow>(db, {
      total: `SELECT count(*)::int AS total FROM fieldops.appointments a WHERE ${filters}`,
      rows: `SELECT ${COLUMNS} FROM fieldops.appointments a JOIN fieldops.appointment_types t ON t.id = a.appointment_type_id
             WHERE ${filters} ORDER BY a.start_at ASC, a.id ASC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }
}

export function appointmentStatusText(status: AppointmentStatus): string {
  return enumToJson(AppointmentStatusSchema, status) ?? "scheduled";
}

export function appointmentStatusOf(text: string): AppointmentStatus {
  return (enumFromJson(AppointmentStatusSchema, text) ?? AppointmentStatus.UNSPECIFIED) as AppointmentStatus;
}

export function toAppointment(row: AppointmentRow): Appointment {
  return create(AppointmentSchema, {
    id: row.id,
    appointmentTypeId: row.appointment_type_id,
    appointmentType: { id: row.appointment_type_id, name: row.appointment_type_name },
    contactId: row.contact_id,
    contact: { id: row.contact_id, name: row.contact_name ?? undefined, phoneNumber: row.contact_phone ?? undefined },
    technicianId: row.technician_id ?? undefined,
    serviceRequestId: row.service_request_id ?? undefined,
    startAt: timestampFromDate(row.start_at),
    endAt: timestampFromDate(row.end_at),
    status: appointmentStatusOf(row.status),
    notes: row.notes ?? undefined,
    cancelReason: row.cancel_reason ?? undefined,
    rescheduledFromId: row.rescheduled_from_id ?? undefined,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
