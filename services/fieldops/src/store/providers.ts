import { newId, type Queryable, selectPage, textSearch } from "@voiceops/platform";
import { SERVICE_PROVIDER_COLUMNS, type ServiceProviderRow } from "./rows.js";

/** Writable provider columns; update SQL is built only from these names, never from input. */
export const PROVIDER_FIELDS = [
  "name",
  "phone_number",
  "email",
  "specialty",
  "skills",
  "status",
  "is_on_call",
  "notes",
] as const;
type ProviderField = (typeof PROVIDER_FIELDS)[number];
export type ProviderValues = Partial<Record<ProviderField, string | string[] | boolean | null>>;

interface ProviderListQuery {
  page: number;
  pageSize: number;
  status: string | undefined;
  /** Case-insensitive equality with the specialty. */
  specialty: string | undefined;
  search: string | undefined;
}

export class ServiceProviderStore {
  async list(
    db: Queryable,
    orgId: string,
    query: ProviderListQuery,
  ): Promise<{ rows: ServiceProviderRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.specialty !== undefined) {
      params.push(query.specialty);
      where.push(`lower(specialty) = lower($${params.length})`);
    }
    if (query.search) {
      where.push(
        textSearch(query.search, params, {
          columns: ["name", "email", "specialty"],
          // One skill at a time, so a match never spans two skills.
          alsoWithin: ["EXISTS (SELECT 1 FROM unnest(skills) AS skill WHERE skill ILIKE {p} ESCAPE '\\')"],
          phoneDigits: "phone_digits",
        }),
      );
    }
    const filter = where.join(" AND ");
    return selectPage<ServiceProviderRow>(db, {
      total: `SELECT count(*)::int AS total FROM fieldops.service_providers WHERE ${filter}`,
      rows: `SELECT ${SERVICE_PROVIDER_COLUMNS} FROM fieldops.service_providers WHERE ${filter} ORDER BY lower(name) ASC, id ASC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<ServiceProviderRow | undefined> {
    const result = await db.query<ServiceProviderRow>(
      `SELECT ${SERVICE_PROVIDER_COLUMNS} FROM fieldops.service_providers WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      {
        cacheable: true,
        prepared: true,
      },
    );
    return result.rows[0];
  }

  async insert(db: Queryable, orgId: string, values: ProviderValues & { name: string }): Promise<ServiceProviderRow> {
    const result = await db.query<ServiceProviderRow>(
      `INSERT INTO fieldops.service_providers (id, org_id, name, phone_number, email, specialty, skills, status, is_on_call, notes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       RETURNING ${SERVICE_PROVIDER_COLUMNS}`,
      [
        newId(),
        orgId,
        values.name,
        values.phone_number ?? null,
        values.email ?? null,
        values.specialty ?? null,
        values.skills ?? [],
        values.status,
        values.is_on_call,
        values.notes ?? null,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error("insert returned no row");
    return row;
  }

  /** Applies the given columns; undefined when the provider does not exist in the org. */
  async update(
    db: Queryable,
    orgId: string,
    id: string,
    values: ProviderValues,
  ): Promise<ServiceProviderRow | undefined> {
    const params: unknown[] = [orgId, id];
    const sets = ["updated_at = now()"];
    for (const field of PROVIDER_FIELDS) {
      if (!(field in values)) continue;
      params.push(field === "skills" ? (values.skills ?? []) : values[field]);
      sets.push(`${field} = $${params.length}`);
    }
    const result = await db.query<ServiceProviderRow>(
      `UPDATE fieldops.service_providers SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING ${SERVICE_PROVIDER_COLUMNS}`,
      params,
    );
    return result.rows[0];
  }

  /** Deletes a provider; resolves its stored id, or undefined when it is not in the org. */
  async delete(db: Queryable, orgId: string, id: string): Promise<string | undefined> {
    const result = await db.query<{ id: string }>(
      `DELETE FROM fieldops.service_providers WHERE org_id = $1 AND id = $2 RETURNING id`,
      [orgId, id],
    );
    return result.rows[0]?.id;
  }
}
