import {
  indexedSearchPattern,
  likePattern,
  looksLikePhone,
  newId,
  organizationFilter,
  phoneDigitsMatch,
  prefixPattern,
  type Queryable,
  selectCountedPage,
  selectPage,
  textSearch,
} from "@voiceops/platform";
import { CONTACT_COLUMNS, type ContactRow } from "./rows.js";

/** Writable contact columns; update SQL is built only from these names, never from input. */
export const CONTACT_FIELDS = [
  "name",
  "phone_number",
  "email",
  "status",
  "company_name",
  "address",
  "notes",
  "tags",
] as const;
type ContactField = (typeof CONTACT_FIELDS)[number];
export type ContactValues = Partial<Record<ContactField, string | string[] | null>>;

export type ContactSort = "name" | "name_desc" | "newest";

const ORDER: Record<ContactSort, string> = {
  name: "lower(name) ASC, id ASC",
  name_desc: "lower(name) DESC, id DESC",
  newest: "created_at DESC, id DESC",
};

/** The contact fields a free-text search looks in (besides the phone digits). */
export const CONTACT_SEARCH_COLUMNS = ["name", "email", "company_name", "address"];

interface ContactListQuery {
  page: number;
  pageSize: number;
  status: string | undefined;
  prospects: boolean;
  search: string | undefined;
  sort: ContactSort;
}

export class ContactStore {
  async list(db: Queryable, orgId: string, query: ContactListQuery): Promise<{ rows: ContactRow[]; total: number }> {
    const params: unknown[] = [orgId];
    let statusFilter: string;
    if (query.status !== undefined) {
      params.push(query.status);
      statusFilter = `status = $${params.length}`;
    } else {
      statusFilter = query.prospects ? "status = 'prospect'" : "status <> 'prospect'";
    }
    const where = [organizationFilter(query.search), statusFilter];
    if (query.search)
      where.push(textSearch(query.search, params, { columns: CONTACT_SEARCH_COLUMNS, phoneDigits: "phone_digits" }));
    const filter = where.join(" AND ");
    // With a search, the matches are found once (the organization's trigram entries) and
    // counted while the page is cut from them.
    if (query.search) {
      return selectCountedPage<ContactRow>(db, {
        columns: CONTACT_COLUMNS,
        from: `crm.contacts WHERE ${filter}`,
        orderBy: ORDER[query.sort],
        params,
        page: query.page,
        pageSize: query.pageSize,
      });
    }
    // Without one, the total comes from the per-status counts the triggers keep: the folded
    // counts plus the changes not folded yet (migration 005).
    return selectPage<ContactRow>(db, {
      total: `SELECT coalesce(sum(n), 0)::int AS total FROM (
                SELECT n FROM crm.contact_counts WHERE org_id = $1 AND ${statusFilter}
                UNION ALL
                SELECT n FROM crm.contact_count_changes WHERE org_id = $1 AND ${statusFilter}) counted`,
      rows: `SELECT ${CONTACT_COLUMNS} FROM crm.contacts WHERE ${filter} ORDER BY ${ORDER[query.sort]}`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(db: Queryable, orgId: string, id: string): Promise<ContactRow | undefined> {
    const result = await db.query<ContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM crm.contacts WHERE org_id = $1 AND id = $2`,
      [orgId, id],
      { cacheable: true, prepared: true },
    );
    return result.rows[0];
  }

  async findByPhone(db: Queryable, orgId: string, phone: string): Promise<ContactRow | undefined> {
    const result = await db.query<ContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM crm.contacts WHERE org_id = $1 AND phone_number = $2`,
      [orgId, phone],
      { cacheable: true, prepared: true },
    );
    return result.rows[0];
  }

  async findByEmail(db: Queryable, orgId: string, email: string): Promise<ContactRow | undefined> {
    const result = await db.query<ContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM crm.contacts WHERE org_id = $1 AND lower(email) = lower($2) ORDER BY created_at, id LIMIT 1`,
      [orgId, email],
    );
    return result.rows[0];
  }

  /** Inserts a contact; resolves undefined when its phone number is already taken in the org. */
  async insert(db: Queryable, orgId: string, values: ContactValues): Promise<ContactRow | undefined> {
    const result = await db.query<ContactRow>(
      `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name, address, notes, tags)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (org_id, phone_number) WHERE phone_number IS NOT NULL DO NOTHING
       RETURNING ${CONTACT_COLUMNS}`,
      [
        newId(),
        orgId,
        values.name ?? null,
        values.phone_number ?? null,
        values.email ?? null,
        values.status,
        values.company_name ?? null,
        values.address ?? null,
        values.notes ?? null,
        values.tags ?? [],
      ],
      { prepared: true },
    );
    return result.rows[0];
  }

  /** Applies the given columns; undefined when the contact does not exist in the org. */
  async update(db: Queryable, orgId: string, id: string, values: ContactValues): Promise<ContactRow | undefined> {
    const params: unknown[] = [orgId, id];
    const sets = ["updated_at = now()"];
    for (const field of CONTACT_FIELDS) {
      if (!(field in values)) continue;
      params.push(field === "tags" ? (values.tags ?? []) : values[field]);
      sets.push(`${field} = $${params.length}`);
    }
    const result = await db.query<ContactRow>(
      `UPDATE crm.contacts SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING ${CONTACT_COLUMNS}`,
      params,
    );
    return result.rows[0];
  }

  /** Deletes contacts (and, by cascade, their leads); returns what was deleted. */
  async delete(
    db: Queryable,
    orgId: string,
    ids: string[],
  ): Promise<{ contactIds: string[]; leads: { id: string; contact_id: string }[] }> {
    const leads = await db.query<{ id: string; contact_id: string }>(
      `SELECT id, contact_id FROM crm.leads WHERE org_id = $1 AND contact_id = ANY($2::uuid[])`,
      [orgId, ids],
    );
    const deleted = await db.query<{ id: string }>(
      `DELETE FROM crm.contacts WHERE org_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
      [orgId, ids],
    );
    return { contactIds: deleted.rows.map((row) => row.id), leads: leads.rows };
  }

  /**
   * Name or phone search, best first: exact phone, then name prefix, then substring. Every
   * branch of the match is indexed (search_text and phone_digits trigrams, the phone key).
   */
  async search(
    db: Queryable,
    orgId: string,
    q: string,
    e164: string | undefined,
    limit: number,
  ): Promise<ContactRow[]> {
    const params: unknown[] = [orgId, likePattern(q), prefixPattern(q), e164 ?? null, limit];
    const narrowing = indexedSearchPattern(q, params).replace("{p}", "$2");
    // The exact number is found through the organization's own phone key.
    let match = `(search_text ILIKE ${narrowing} ESCAPE '\\' AND name ILIKE $2 ESCAPE '\\') OR (org_id = $1 AND phone_number = $4)`;
    if (looksLikePhone(q)) match += ` OR ${phoneDigitsMatch("phone_digits", q, params)}`;
    const result = await db.query<ContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM crm.contacts
       WHERE ${organizationFilter(q)} AND (${match})
       ORDER BY CASE WHEN phone_number = $4 THEN 0 WHEN name ILIKE $3 ESCAPE '\\' THEN 1 ELSE 2 END, lower(name), id
       LIMIT $5`,
      params,
    );
    return result.rows;
  }

  async searchByEmail(db: Queryable, orgId: string, text: string, limit: number): Promise<ContactRow[]> {
    const result = await db.query<ContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM crm.contacts WHERE org_id = $1 AND email ILIKE $2 ESCAPE '\\'
       ORDER BY lower(email), id LIMIT $3`,
      [orgId, likePattern(text), limit],
    );
    return result.rows;
  }
}
