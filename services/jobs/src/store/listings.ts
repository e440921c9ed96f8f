import { newId, type Queryable, selectPage, textSearch } from "@voiceops/platform";
import { LISTING_COLUMNS, type ListingRow } from "./listing-rows.js";

/** Writable listing columns; update SQL is built only from these names, never from input. */
export const LISTING_FIELDS = [
  "name",
  "description",
  "category",
  "price_cents",
  "duration_minutes",
  "is_available",
  "is_active",
] as const;
export interface ListingValues {
  name?: string;
  description?: string | null;
  category?: string | null;
  price_cents?: number | null;
  duration_minutes?: number | null;
  is_available?: boolean;
  is_active?: boolean;
}

interface ListingListQuery {
  page: number;
  pageSize: number;
  isAvailable: boolean | undefined;
  isActive: boolean | undefined;
  search: string | undefined;
}

export class ServiceListingStore {
  /** One page in name order (case-insensitive, ties by id) and the count of every match. */
  async list(db: Queryable, orgId: string, query: ListingListQuery): Promise<{ rows: ListingRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (query.isActive !== undefined) {
      params.push(query.isActive);
      where.push(`is_active = $${params.length}`);
    }
    if (query.isAvailable !== undefined) {
      params.push(query.isAvailable);
      where.push(`is_available = $${params.length}`);
    }
    if (query.search) where.push(textSearch(query.search, params, { columns: ["name", "description", "category"] }));
    const filter = where.join(" AND ");
    return selectPage<ListingRow>(db, {
      total: `SELECT count(*)::int AS total FROM jobs.service_listings WHERE ${filter}`,
      rows: `SELECT ${LISTING_COLUMNS} FROM jobs.service_listings WHERE ${filter} ORDER BY lower(name) ASC, id ASC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<ListingRow | undefined> {
    const result = await db.query<ListingRow>(
      `SELECT ${LISTING_COLUMNS} FROM jobs.service_listings WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      {
        cacheable: true,
        prepared: true,
      },
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, values: ListingValues & { name: string }): Promise<ListingRow> {
    const result = await db.query<ListingRow>(
      `INSERT INTO jobs.service_listings (id, org_id, name, description, category, price_cents, duration_minutes, is_available, is_active)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${LISTING_COLUMNS}`,
      [
        newId(),
        orgId,
        values.name,
        values.description ?? null,
        values.category ?? null,
        values.price_cents ?? null,
        values.duration_minutes ?? null,
        values.is_available,
        values.is_active,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error("insert into jobs.service_listings returned no row");
    return row;
  }

  /** Applies the given columns; undefined when the listing does not exist in the org. */
  async update(db: Queryable, orgId: string, id: string, values: ListingValues): Promise<ListingRow | undefined> {
    const params: unknown[] = [orgId, id];
    const sets = ["updated_at = now()"];
    for (const field of LISTING_FIELDS) {
      if (!(field in values)) continue;
      params.push(values[field]);
      sets.push(`${field} = $${params.length}`);
    }
    const result = await db.query<ListingRow>(
      `UPDATE jobs.service_listings SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING ${LISTING_COLUMNS}`,
      params,
    );
    return result.rows[0];
  }

  /** Deletes a listing; resolves its id, or undefined when it does not exist in the org. */
  async delete(db: Queryable, orgId: string, id: string): Promise<string | undefined> {
    const result = await db.query<{ id: string }>(
      `DELETE FROM jobs.service_listings WHERE org_id = $1 AND id = $2 RETURNING id`,
      [orgId, id],
    );
    return result.rows[0]?.id;
  }
}
