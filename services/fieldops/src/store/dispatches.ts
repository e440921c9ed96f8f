import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson, enumToJson, newId, type Queryable } from "@voiceops/platform";
import {
  DispatchSchema,
  DispatchStatus,
  DispatchStatusSchema,
  type Dispatch,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { technicianSummary, withTechnician, type WithTechnician } from "./rows.js";
import { ACTIVE_DISPATCH } from "./technicians.js";

export interface DispatchRow extends WithTechnician {
  id: string;
  org_id: string;
  service_request_id: string;
  technician_id: string | null;
  /** API spelling: pending, assigned, en_route, on_site, completed, cancelled. */
  status: string;
  eta_at: Date | null;
  notes: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  cancelled_at: Date | null;
}

/** The columns a dispatch write sets. */
export interface DispatchValues {
  technician_id: string | null;
  status: string;
  eta_at: Date | null;
  notes: string | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
}

const COLUMNS =
  "d.id, d.org_id, d.service_request_id, d.technician_id, d.status, d.eta_at, d.notes, d.created_at, d.updated_at, d.completed_at, d.cancelled_at";

/** Dispatch rows of a statement (a SELECT, or a write RETURNING *), with their technician. */
function dispatchesOf(db: Queryable, statement: string, params: unknown[], orderBy?: string): Promise<DispatchRow[]> {
  return withTechnician<DispatchRow>(db, { alias: "d", columns: COLUMNS, statement, params, orderBy });
}

interface DispatchListQuery {
  status?: string;
  serviceRequestId?: string;
  technicianId?: string;
}

export class DispatchStore {
  /** Newest first. */
  async list(db: Queryable, orgId: string, query: DispatchListQuery): Promise<DispatchRow[]> {
    const params: unknown[] = [orgId];
    const where = ["d.org_id = $1"];
    const filter = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`d.${column} = $${params.length}`);
    };
    filter("status", query.status);
    filter("service_request_id", query.serviceRequestId);
    filter("technician_id", query.technicianId);
    return dispatchesOf(
      db,
      `SELECT * FROM fieldops.dispatches d WHERE ${where.join(" AND ")}`,
      params,
      "d.created_at DESC, d.id DESC",
    );
  }

  /** Active dispatches, soonest ETA first, those without one last, then oldest first. */
  async listActive(db: Queryable, orgId: string): Promise<DispatchRow[]> {
    return dispatchesOf(
      db,
      `SELECT * FROM fieldops.dispatches d WHERE d.org_id = $1 AND d.${ACTIVE_DISPATCH}`,
      [orgId],
      "d.eta_at ASC NULLS LAST, d.created_at ASC, d.id ASC",
    );
  }

  async get(
    db: Queryable,
    orgId: string,
    id: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<DispatchRow | undefined> {
    const [row] = await dispatchesOf(
      db,
      `SELECT * FROM fieldops.dispatches WHERE org_id = $1 AND id = $2 ${options.forUpdate ? "FOR UPDATE" : ""}`,
      [orgId, id],
    );
    return row;
  }

  /** Ids of the active dispatches of a service request. */
  async activeIdsForRequest(db: Queryable, orgId: string, serviceRequestId: string): Promise<string[]> {
    const result = await db.query<{ id: string }>(
      `SELECT id FROM fieldops.dispatches WHERE org_id = $1 AND service_request_id = $2 AND ${ACTIVE_DISPATCH}`,
      [orgId, serviceRequestId],
    );
    return result.rows.map((row) => row.id);
  }

  async insert(
    db: Queryable,
    orgId: string,
    serviceRequestId: string,
    values: DispatchValues,
    now: Date,
  ): Promise<DispatchRow> {
    const [row] = await dispatchesOf(
      db,
      `INSERT INTO fieldops.dispatches (id, org_id, service_request_id, technician_id, status, eta_at, notes, created_at, updated_at, completed_at, cancelled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10) RETURNING *`,
      [
        newId(),
        orgId,
        serviceRequestId,
        values.technician_id,
        values.status,
        values.eta_at,
        values.notes,
        now,
        values.completed_at,
        values.cancelled_at,
      ],
    );
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  async update(
    db: Queryable,
    orgId: string,
    id: string,
    values: DispatchValues,
    now: Date,
  ): Promise<DispatchRow | undefined> {
    const [row] = await dispatchesOf(
      db,
      `UPDATE fieldops.dispatches
       SET technician_id = $3, status = $4, eta_at = $5, notes = $6, completed_at = $7, cancelled_at = $8, updated_at = $9
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [
        orgId,
        id,
        values.technician_id,
        values.status,
        values.eta_at,
        values.notes,
        values.completed_at,
        values.cancelled_at,
        now,
      ],
    );
    return row;
  }
}

export function dispatchStatusText(status: DispatchStatus): string {
  return enumToJson(DispatchStatusSchema, status) ?? "pending";
}

export function dispatchStatusOf(text: string): DispatchStatus {
  return (enumFromJson(DispatchStatusSchema, text) ?? DispatchStatus.UNSPECIFIED) as DispatchStatus;
}

/** The values a row holds, to change some of them. */
export function dispatchValuesOf(row: DispatchRow): DispatchValues {
  return {
    technician_id: row.technician_id,
    status: row.status,
    eta_at: row.eta_at,
    notes: row.notes,
    completed_at: row.completed_at,
    cancelled_at: row.cancelled_at,
  };
}

export function toDispatch(row: DispatchRow): Dispatch {
  const ts = (value: Date | null) => (value ? timestampFromDate(value) : undefined);
  return create(DispatchSchema, {
    id: row.id,
    serviceRequestId: row.service_request_id,
    technicianId: row.technician_id ?? undefined,
    technician: technicianSummary(row),
    status: dispatchStatusOf(row.status),
    etaAt: ts(row.eta_at),
    notes: row.notes ?? undefined,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    completedAt: ts(row.completed_at),
    cancelledAt: ts(row.cancelled_at),
  });
}
