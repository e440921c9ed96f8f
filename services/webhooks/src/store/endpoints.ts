import { newId, type Queryable, selectPage } from "@voiceops/platform";
import { ENDPOINT_COLUMNS, type EndpointRow } from "./rows.js";

interface EndpointListQuery {
  page: number;
  pageSize: number;
  enabled: boolean | undefined;
  eventType: string | undefined;
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  event_types?: string[];
  enabled?: boolean;
}

/** How long a rotated-out secret still signs deliveries. */
const PREVIOUS_SECRET_HOURS = 24;

export class EndpointStore {
  async list(db: Queryable, orgId: string, query: EndpointListQuery): Promise<{ rows: EndpointRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (query.enabled !== undefined) {
      params.push(query.enabled);
      where.push(`enabled = $${params.length}`);
    }
    if (query.eventType !== undefined) {
      params.push(query.eventType);
      where.push(`(event_types && ARRAY['*', $${params.length}]::text[])`);
    }
    const filter = where.join(" AND ");
    return selectPage<EndpointRow>(db, {
      total: `SELECT count(*)::int AS total FROM webhooks.endpoints WHERE ${filter}`,
      rows: `SELECT ${ENDPOINT_COLUMNS} FROM webhooks.endpoints WHERE ${filter} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<EndpointRow | undefined> {
    const result = await db.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhooks.endpoints WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      { prepared: true },
    );
    return result.rows[0];
  }

  async insert(
    db: Queryable,
    orgId: string,
    values: { url: string; description: string | null; event_types: string[]; secret: string },
    now: Date,
  ): Promise<EndpointRow> {
    const result = await db.query<EndpointRow>(
      `INSERT INTO webhooks.endpoints (id, org_id, url, description, event_types, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${ENDPOINT_COLUMNS}`,
      [newId(), orgId, values.url, values.description, values.event_types, values.secret, now],
    );
    return result.rows[0] as EndpointRow;
  }

  async update(
    db: Queryable,
    orgId: string,
    id: string,
    changes: EndpointChanges,
    now: Date,
  ): Promise<EndpointRow | undefined> {
    const params: unknown[] = [orgId, id, now];
    const sets = ["updated_at = $3"];
    for (const column of ["url", "description", "event_types"] as const) {
      if (!(column in changes)) continue;
      params.push(changes[column]);
      sets.push(`${column} = $${params.length}`);
    }
    if (changes.enabled !== undefined) {
      params.push(changes.enabled);
      // Enabling clears the reason and the failure streak; disabling by hand says so.
      sets.push(
        `enabled = $${params.length}`,
        `disabled_reason = CASE WHEN $${params.length} THEN NULL ELSE 'manual' END`,
        `failing_since = CASE WHEN $${params.length} THEN NULL ELSE failing_since END`,
      );
    }
    const result = await db.query<EndpointRow>(
      `UPDATE webhooks.endpoints SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
      params,
    );
    return result.rows[0];
  }

  async delete(db: Queryable, orgId: string, id: string): Promise<boolean> {
    const result = await db.query("DELETE FROM webhooks.endpoints WHERE org_id = $1 AND id = $2", [orgId, id]);
    return result.rowCount > 0;
  }

  /** Gives the endpoint a new secret; the current one keeps signing for 24 hours. */
  async rotateSecret(db: Queryable, orgId: string, id: string, secret: string, now: Date): Promise<boolean> {
    const result = await db.query(
      `UPDATE webhooks.endpoints SET previous_secret = secret, previous_secret_until = $4::timestamptz + interval '${PREVIOUS_SECRET_HOURS} hours',
         secret = $3, updated_at = $4 WHERE org_id = $1 AND id = $2`,
      [orgId, id, secret, now],
    );
    return result.rowCount > 0;
  }
}
