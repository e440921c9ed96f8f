import { newId, type Queryable, selectPage, textSearch } from "@voiceops/platform";
import { CONTACT_SEARCH_COLUMNS } from "./contacts.js";
import type { LeadRow } from "./rows.js";

export const LEAD_FIELDS = [
  "status",
  "source",
  "notes",
  "estimated_value_cents",
  "next_step",
  "next_step_due_at",
  "lost_reason",
  "won_at",
  "lost_at",
  "customer_id",
] as const;
type LeadField = (typeof LEAD_FIELDS)[number];
export type LeadValues = Partial<Record<LeadField, string | number | Date | null>>;

const SELECT = `SELECT l.id, l.org_id, l.contact_id, l.status, l.source, l.notes, l.estimated_value_cents, l.next_step,
  l.next_step_due_at, l.lost_reason, l.won_at, l.lost_at, l.customer_id, l.created_at, l.updated_at,
  c.name AS contact_name, c.phone_number AS contact_phone_number, c.email AS contact_email
  FROM crm.leads l JOIN crm.contacts c ON c.id = l.contact_id`;

const OPEN = "l.status NOT IN ('won', 'lost')";

interface LeadListQuery {
  page: number;
  pageSize: number;
  status: string | undefined;
  search: string | undefined;
  /** Only open leads last updated before this instant. */
  staleBefore: Date | undefined;
  /** Only open leads whose next step is due before this instant. */
  dueBefore: Date | undefined;
}

export class LeadStore {
  async list(db: Queryable, orgId: string, query: LeadListQuery): Promise<{ rows: LeadRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["l.org_id = $1"];
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`l.status = $${params.length}`);
    }
    if (query.search) {
      where.push(
        textSearch(query.search, params, {
          alias: "c.",
          columns: CONTACT_SEARCH_COLUMNS,
          phoneDigits: "phone_digits",
          besides: ["l.notes ILIKE {p} ESCAPE '\\'"],
        }),
      );
    }
    let order = "l.created_at DESC, l.id DESC";
    if (query.staleBefore) {
      params.push(query.staleBefore);
      where.push(OPEN, `l.updated_at < $${params.length}`);
      order = "l.updated_at ASC, l.id ASC";
    }
    if (query.dueBefore) {
      params.push(query.dueBefore);
      where.push(OPEN, `l.next_step_due_at < $${params.length}`);
      order = "l.next_step_due_at ASC, l.id ASC";
    }
    const filter = where.join(" AND ");
    return selectPage<LeadRow>(db, {
      total: `SELECT count(*)::int AS total FROM crm.leads l JOIN crm.contacts c ON c.id = l.contact_id WHERE ${filter}`,
      rows: `${SELECT} WHERE ${filter} ORDER BY ${order}`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<LeadRow | undefined> {
    const result = await db.query<LeadRow>(`${SELECT} WHERE l.org_id = $1 AND l.id = $2`, [orgId, id], {
      cacheable: true,
      prepared: true,
    });
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, contactId: string, values: LeadValues): Promise<string> {
    const id = newId();
    await db.query(
      `INSERT INTO crm.leads (id, org_id, contact_id, status, source, notes, estimated_value_cents, next_step,
         next_step_due_at, lost_reason, won_at, lost_at, customer_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        id,
        orgId,
        contactId,
        values.status,
        values.source ?? null,
        values.notes ?? null,
        values.estimated_value_cents ?? null,
        values.next_step ?? null,
        values.next_step_due_at ?? null,
        values.lost_reason ?? null,
        values.won_at ?? null,
        values.lost_at ?? null,
        values.customer_id ?? null,
      ],
    );
    return id;
  }

  async update(db: Queryable, orgId: string, id: string, values: LeadValues): Promise<boolean> {
    const params: unknown[] = [orgId, id];
    const sets = ["updated_at = now()"];
    for (const field of LEAD_FIELDS) {
      if (!(field in values)) continue;
      params.push(values[field]);
      sets.push(`${field} = $${params.length}`);
    }
    const result = await db.query(`UPDATE crm.leads SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2`, params);
    return result.rowCount > 0;
  }

  async delete(db: Queryable, orgId: string, id: string): Promise<{ contact_id: string } | undefined> {
    const result = await db.query<{ contact_id: string }>(
      `DELETE FROM crm.leads WHERE org_id = $1 AND id = $2 RETURNING contact_id`,
      [orgId, id],
    );
    return result.rows[0];
  }

  /** Everything the pipeline shows, in one round trip. */
  async pipeline(db: Queryable, orgId: string, since: Date) {
    const result = await db.query<{
      by_status: Record<string, number> | null;
      won_count: number;
      lost_count: number;
      losses: { lead_id: string; reason: string; lost_at: string }[] | null;
      wins: { contact_id: string; name: string | null; won_at: string }[] | null;
    }>(
      `SELECT
         (SELECT json_object_agg(status, n) FROM (SELECT status, count(*)::int AS n FROM crm.leads WHERE org_id = $1 GROUP BY status) s) AS by_status,
         (SELECT count(*)::int FROM crm.leads WHERE org_id = $1 AND won_at >= $2) AS won_count,
         (SELECT count(*)::int FROM crm.leads WHERE org_id = $1 AND lost_at >= $2) AS lost_count,
         (SELECT json_agg(x) FROM (
            SELECT id AS lead_id, coalesce(lost_reason, '') AS reason, lost_at FROM crm.leads
            WHERE org_id = $1 AND lost_at >= $2 ORDER BY lost_at DESC, id DESC LIMIT 10) x) AS losses,
         (SELECT json_agg(y) FROM (
            SELECT l.contact_id, c.name, max(l.won_at) AS won_at FROM crm.leads l JOIN crm.contacts c ON c.id = l.contact_id
            WHERE l.org_id = $1 AND l.won_at >= $2 GROUP BY l.contact_id, c.name ORDER BY max(l.won_at) DESC LIMIT 100) y) AS wins`,
      [orgId, since],
    );
    return result.rows[0];
  }
}
