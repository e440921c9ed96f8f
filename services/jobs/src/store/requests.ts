import { newId, type Queryable, selectPage, textSearch } from "@voiceops/platform";
import { REQUEST_COLUMNS, type RequestRow } from "./rows.js";

/** Writable request columns; update SQL is built only from these names. */
export const REQUEST_FIELDS = [
  "contact_id",
  "address",
  "category",
  "description",
  "priority",
  "status",
  "due_at",
  "provider_id",
] as const;
type RequestField = (typeof REQUEST_FIELDS)[number];
export type RequestValues = Partial<Record<RequestField, string | Date | null>>;

const OPEN = "status NOT IN ('completed', 'cancelled')";

interface RequestListQuery {
  page: number;
  pageSize: number;
  status: string | undefined;
  priority: string | undefined;
  contactId: string | undefined;
  search: string | undefined;
  /** Only open requests due before this instant, soonest first. */
  dueBefore: Date | undefined;
}

interface QuoteValues {
  amountCents: number;
  diagnosticFeeCents: number | null;
  notes: string | null;
}

interface EmergencyValues {
  type: string;
  priority: number;
  notes: string | null;
}

export class RequestStore {
  async list(db: Queryable, orgId: string, query: RequestListQuery): Promise<{ rows: RequestRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    const filter = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    filter("status", query.status);
    filter("priority", query.priority);
    filter("contact_id", query.contactId);
    if (query.search) where.push(textSearch(query.search, params, { columns: ["description", "address", "category"] }));
    let order = "created_at DESC, id DESC";
    if (query.dueBefore) {
      params.push(query.dueBefore);
      where.push(OPEN, `due_at < $${params.length}`);
      order = "due_at ASC, id ASC";
    }
    const condition = where.join(" AND ");
    return selectPage<RequestRow>(db, {
      total: `SELECT count(*)::int AS total FROM jobs.service_requests WHERE ${condition}`,
      rows: `SELECT ${REQUEST_COLUMNS} FROM jobs.service_requests WHERE ${condition} ORDER BY ${order}`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<RequestRow | undefined> {
    const result = await db.query<RequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM jobs.service_requests WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      {
        cacheable: true,
        prepared: true,
      },
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, values: RequestValues): Promise<RequestRow> {
    const result = await db.query<RequestRow>(
      `INSERT INTO jobs.service_requests (id, org_id, contact_id, address, category, description, priority, status, due_at, provider_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${REQUEST_COLUMNS}`,
      [
        newId(),
        orgId,
        values.contact_id ?? null,
        values.address ?? null,
        values.category ?? null,
        values.description,
        values.priority,
        values.status,
        values.due_at ?? null,
        values.provider_id ?? null,
      ],
    );
    return result.rows[0] as RequestRow;
  }

  async update(db: Queryable, orgId: string, id: string, values: RequestValues): Promise<RequestRow | undefined> {
    const params: unknown[] = [orgId, id];
    const sets = ["updated_at = now()"];
    for (const field of REQUEST_FIELDS) {
      if (!(field in values)) continue;
      params.push(values[field]);
      sets.push(`${field} = $${params.length}`);
    }
    const result = await db.query<RequestRow>(
      `UPDATE jobs.service_requests SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING ${REQUEST_COLUMNS}`,
      params,
    );
    return result.rows[0];
  }

  async delete(db: Queryable, orgId: string, id: string): Promise<boolean> {
    const result = await db.query(`DELETE FROM jobs.service_requests WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return result.rowCount > 0;
  }

  /** Creates or replaces the quote; it awaits approval again. */
  async postQuote(db: Queryable, orgId: string, id: string, quote: QuoteValues): Promise<RequestRow | undefined> {
    const result = await db.query<RequestRow>(
      `UPDATE jobs.service_requests
       SET quote_amount_cents = $3, quote_diagnostic_fee_cents = $4, quote_notes = $5, quote_status = 'pending',
           quote_updated_at = now(), updated_at = now()
       WHERE org_id = $1 AND id = $2 RETURNING ${REQUEST_COLUMNS}`,
      [orgId, id, quote.amountCents, quote.diagnosticFeeCents, quote.notes],
    );
    return result.rows[0];
  }

  /** Sets the status of an existing quote; undefined when the request has none. */
  async setQuoteStatus(db: Queryable, orgId: string, id: string, status: string): Promise<RequestRow | undefined> {
    const result = await db.query<RequestRow>(
      `UPDATE jobs.service_requests SET quote_status = $3, quote_updated_at = now(), updated_at = now()
       WHERE org_id = $1 AND id = $2 AND quote_status IS NOT NULL RETURNING ${REQUEST_COLUMNS}`,
      [orgId, id, status],
    );
    return result.rows[0];
  }

  /** Flags a request as an emergency; the first flagging time is kept. */
  async markEmergency(
    db: Queryable,
    orgId: string,
    id: string,
    emergency: EmergencyValues,
  ): Promise<RequestRow | undefined> {
    const result = await db.query<RequestRow>(
      `UPDATE jobs.service_requests
       SET is_emergency = true, emergency_type = $3, emergency_priority = $4, emergency_notes = $5,
           emergency_at = coalesce(emergency_at, now()), updated_at = now()
       WHERE org_id = $1 AND id = $2 RETURNING ${REQUEST_COLUMNS}`,
      [orgId, id, emergency.type, emergency.priority, emergency.notes],
    );
    return result.rows[0];
  }

  async stats(
    db: Queryable,
    orgId: string,
  ): Promise<{ open_total: number; emergencies: number; pending_quotes: number; assigned: number }> {
    const result = await db.query<{
      open_total: number;
      emergencies: number;
      pending_quotes: number;
      assigned: number;
    }>(
      `SELECT count(*)::int AS open_total,
              count(*) FILTER (WHERE is_emergency)::int AS emergencies,
              count(*) FILTER (WHERE quote_status = 'pending')::int AS pending_quotes,
              count(*) FILTER (WHERE provider_id IS NOT NULL)::int AS assigned
       FROM jobs.service_requests WHERE org_id = $1 AND ${OPEN}`,
      [orgId],
    );
    return result.rows[0] ?? { open_total: 0, emergencies: 0, pending_quotes: 0, assigned: 0 };
  }

  async pendingQuotes(db: Queryable, orgId: string): Promise<RequestRow[]> {
    const result = await db.query<RequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM jobs.service_requests WHERE org_id = $1 AND quote_status = 'pending'
       ORDER BY quote_updated_at ASC, id ASC`,
      [orgId],
    );
    return result.rows;
  }

  async activeEmergencies(db: Queryable, orgId: string): Promise<RequestRow[]> {
    const result = await db.query<RequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM jobs.service_requests WHERE org_id = $1 AND is_emergency AND ${OPEN}
       ORDER BY emergency_priority ASC, emergency_at ASC, id ASC`,
      [orgId],
    );
    return result.rows;
  }

  /** Clears a link to another service's deleted record; returns the requests changed. */
  async unlink(db: Queryable, orgId: string, column: "contact_id" | "provider_id", id: string): Promise<RequestRow[]> {
    const result = await db.query<RequestRow>(
      `UPDATE jobs.service_requests SET ${column} = NULL, updated_at = now()
       WHERE org_id = $1 AND ${column} = $2 RETURNING ${REQUEST_COLUMNS}`,
      [orgId, id],
    );
    return result.rows;
  }

  /** Sets the provider of a request that has none (a dispatch assigned one); undefined when it had one. */
  async assignProviderIfNone(
    db: Queryable,
    orgId: string,
    id: string,
    providerId: string,
  ): Promise<RequestRow | undefined> {
    const result = await db.query<RequestRow>(
      `UPDATE jobs.service_requests SET provider_id = $3, updated_at = now()
       WHERE org_id = $1 AND id = $2 AND provider_id IS NULL RETURNING ${REQUEST_COLUMNS}`,
      [orgId, id, providerId],
    );
    return result.rows[0];
  }
}
