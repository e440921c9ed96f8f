import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Queryable } from "@voiceops/platform";
import {
  OnCallSource,
  OnCallTechnicianSchema,
  TechnicianSchema,
  type OnCallTechnician,
  type Technician,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { providerFields, SERVICE_PROVIDER_COLUMNS, type ServiceProviderRow } from "./rows.js";

/** A service provider seen as a technician: who is on call and available at a given instant. */
export interface TechnicianRow extends ServiceProviderRow {
  on_call_now: boolean;
  available_now: boolean;
  /** End of the scheduled on-call schedule covering the instant, if one does. */
  schedule_until: Date | null;
}

/** Active dispatches: neither completed nor cancelled. */
export const ACTIVE_DISPATCH = "status NOT IN ('completed', 'cancelled')";

interface TechnicianFilter {
  id?: string;
  /** One element of skills, ignoring case. */
  skill?: string;
  onCallNow?: boolean;
  availableNow?: boolean;
}

const PROVIDER_COLUMNS_OF_P = SERVICE_PROVIDER_COLUMNS.split(", ")
  .map((column) => `p.${column}`)
  .join(", ");

/**
 * One SELECT of technicians with on_call_now and available_now computed at `now`: the flag or a
 * scheduled schedule covering now, and no active dispatch. $1 is the org, $2 the instant;
 * filters push further parameters. Ordered by name (case-insensitive), ties by id.
 */
function technicianQuery(orgId: string, now: Date, filter: TechnicianFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [orgId, now];
  const inner = ["p.org_id = $1"];
  if (filter.id !== undefined) {
    params.push(filter.id);
    inner.push(`p.id = $${params.length}`);
  }
  if (filter.skill !== undefined) {
    params.push(filter.skill);
    inner.push(`EXISTS (SELECT 1 FROM unnest(p.skills) AS skill WHERE lower(skill) = lower($${params.length}))`);
  }
  const outer: string[] = [];
  if (filter.onCallNow !== undefined) {
    params.push(filter.onCallNow);
    outer.push(`t.on_call_now = $${params.length}`);
  }
  if (filter.availableNow !== undefined) {
    params.push(filter.availableNow);
    outer.push(`t.available_now = $${params.length}`);
  }
  const sql = `SELECT t.* FROM (
      SELECT ${PROVIDER_COLUMNS_OF_P},
        (p.is_on_call OR s.end_at IS NOT NULL) AS on_call_now,
        (p.status = 'active' AND (p.is_on_call OR s.end_at IS NOT NULL) AND NOT EXISTS (
          SELECT 1 FROM fieldops.dispatches d WHERE d.org_id = p.org_id AND d.technician_id = p.id AND d.${ACTIVE_DISPATCH}
        )) AS available_now,
        s.end_at AS schedule_until
      FROM fieldops.service_providers p
      LEFT JOIN LATERAL (
        SELECT c.end_at FROM fieldops.on_call_schedules c
        WHERE c.org_id = p.org_id AND c.technician_id = p.id AND c.status = 'scheduled' AND c.start_at <= $2 AND c.end_at > $2
        ORDER BY c.end_at DESC LIMIT 1
      ) s ON true
      WHERE ${inner.join(" AND ")}
    ) t
    ${outer.length > 0 ? `WHERE ${outer.join(" AND ")}` : ""}`;
  return { sql, params };
}

export class TechnicianStore {
  /** The org's technicians matching the filter, by name: one query. */
  async list(db: Queryable, orgId: string, now: Date, filter: TechnicianFilter = {}): Promise<TechnicianRow[]> {
    const { sql, params } = technicianQuery(orgId, now, filter);
    const result = await db.query<TechnicianRow>(`${sql} ORDER BY lower(t.name) ASC, t.id ASC`, params);
    return result.rows;
  }

  async get(db: Queryable, orgId: string, id: string, now: Date): Promise<TechnicianRow | undefined> {
    return (await this.list(db, orgId, now, { id }))[0];
  }

  /**
   * Locks a technician's row until the transaction ends: writes that depend on what the
   * technician has (schedules, dispatches) serialize on it, and a deletion waits for them.
   * Resolves the stored row, or undefined when the technician is not in the org.
   */
  async lock(db: Queryable, orgId: string, id: string): Promise<ServiceProviderRow | undefined> {
    const result = await db.query<ServiceProviderRow>(
      `SELECT ${SERVICE_PROVIDER_COLUMNS} FROM fieldops.service_providers WHERE org_id = $1 AND id = $2 FOR UPDATE`,
      [orgId, id],
    );
    return result.rows[0];
  }

  /**
   * Ids of the technicians available now, best first for an emergency: a skill equal (ignoring
   * case) to one of `skills` first, then the fewest dispatches created in [dayStart, dayEnd)
   * (cancelled ones not counted), then name and id.
   */
  async rankAvailable(
    db: Queryable,
    orgId: string,
    now: Date,
    skills: string[],
    day: { start: Date; end: Date },
  ): Promise<string[]> {
    const { sql, params } = technicianQuery(orgId, now, { availableNow: true });
    params.push(
      skills.map((skill) => skill.toLowerCase()),
      day.start,
      day.end,
    );
    const [skillsParam, startParam, endParam] = [params.length - 2, params.length - 1, params.length];
    const result = await db.query<{ id: string }>(
      `SELECT r.id FROM (${sql}) r
       ORDER BY EXISTS (SELECT 1 FROM unnest(r.skills) AS skill WHERE lower(skill) = ANY($${skillsParam}::text[])) DESC,
         (SELECT count(*) FROM fieldops.dispatches d
          WHERE d.org_id = $1 AND d.technician_id = r.id AND d.status <> 'cancelled'
            AND d.created_at >= $${startParam} AND d.created_at < $${endParam}) ASC,
         lower(r.name) ASC, r.id ASC`,
      params,
    );
    return result.rows.map((row) => row.id);
  }

  async hasActiveDispatch(db: Queryable, orgId: string, technicianId: string): Promise<boolean> {
    const result = await db.query(
      `SELECT 1 FROM fieldops.dispatches WHERE org_id = $1 AND technician_id = $2 AND ${ACTIVE_DISPATCH} LIMIT 1`,
      [orgId, technicianId],
    );
    return result.rows.length > 0;
  }
}

function technicianFields(row: TechnicianRow) {
  return { ...providerFields(row), onCallNow: row.on_call_now, availableNow: row.available_now };
}

export function toTechnician(row: TechnicianRow): Technician {
  return create(TechnicianSchema, technicianFields(row));
}

/** A technician on call now: by the flag (no end), else by the schedule covering now. */
export function toOnCallTechnician(row: TechnicianRow): OnCallTechnician {
  const byFlag = row.is_on_call || row.schedule_until === null;
  return create(OnCallTechnicianSchema, {
    ...technicianFields(row),
    onCallSource: byFlag ? OnCallSource.FLAG : OnCallSource.SCHEDULE,
    onCallUntil: byFlag || row.schedule_until === null ? undefined : timestampFromDate(row.schedule_until),
  });
}
