import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { newId, type Queryable } from "@voiceops/platform";
import { SlotHoldSchema, type SlotHold } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";

export interface SlotHoldRow {
  id: string;
  org_id: string;
  appointment_type_id: string;
  technician_id: string | null;
  start_at: Date;
  end_at: Date;
  /** What the hold claims of its resource: the slot widened by the type's buffers. */
  held_from: Date;
  held_to: Date;
  expires_at: Date;
  created_at: Date;
}

interface NewSlotHold {
  appointment_type_id: string;
  technician_id: string | null;
  start_at: Date;
  end_at: Date;
  held_from: Date;
  held_to: Date;
  expires_at: Date;
}

const COLUMNS =
  "id, org_id, appointment_type_id, technician_id, start_at, end_at, lower(blocked) AS held_from, upper(blocked) AS held_to, expires_at, created_at";

/**
 * Slot holds. Each one claims its resource's time in fieldops.reservations (a trigger), whose
 * exclusion constraint also holds every active appointment's claim: an overlap with either is
 * refused (23P01).
 */
export class SlotHoldStore {
  /** Inserts a hold (after ReservationStore.prepareClaim); an overlap with a live claim: 23P01. */
  async insert(db: Queryable, orgId: string, values: NewSlotHold, now: Date): Promise<SlotHoldRow> {
    const result = await db.query<SlotHoldRow>(
      `INSERT INTO fieldops.slot_holds (id, org_id, appointment_type_id, technician_id, start_at, end_at, blocked, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, tstzrange($7, $8), $9, $10) RETURNING ${COLUMNS}`,
      [
        newId(),
        orgId,
        values.appointment_type_id,
        values.technician_id,
        values.start_at,
        values.end_at,
        values.held_from,
        values.held_to,
        values.expires_at,
        now,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  /** A hold of the organization that is still live at `now`. */
  async getLive(db: Queryable, orgId: string, id: string, now: Date): Promise<SlotHoldRow | undefined> {
    const result = await db.query<SlotHoldRow>(
      `SELECT ${COLUMNS} FROM fieldops.slot_holds WHERE org_id = $1 AND id = $2 AND expires_at > $3`,
      [orgId, id, now],
    );
    return result.rows[0];
  }

  /**
   * Ends a hold: deleted with its claim. With `liveAt`, only a hold still live then (the
   * booking of a hold); concurrent takers of one hold wait on its row, and only one gets it.
   */
  async take(db: Queryable, orgId: string, id: string, liveAt?: Date): Promise<SlotHoldRow | undefined> {
    const result = await db.query<SlotHoldRow>(
      `DELETE FROM fieldops.slot_holds WHERE org_id = $1 AND id = $2 AND ($3::timestamptz IS NULL OR expires_at > $3) RETURNING ${COLUMNS}`,
      [orgId, id, liveAt ?? null],
    );
    return result.rows[0];
  }
}

export function toSlotHold(row: SlotHoldRow): SlotHold {
  return create(SlotHoldSchema, {
    id: row.id,
    appointmentTypeId: row.appointment_type_id,
    technicianId: row.technician_id ?? undefined,
    startAt: timestampFromDate(row.start_at),
    endAt: timestampFromDate(row.end_at),
    expiresAt: timestampFromDate(row.expires_at),
  });
}
