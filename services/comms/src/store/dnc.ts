import { likePattern, looksLikePhone, newId, phoneDigits, selectPage, type Queryable } from "@voiceops/platform";
import { DNC_COLUMNS, type DncRow, type DncSourceName } from "./outbound-rows.js";

/** An entry blocks while it has no expiry or its expiry is still ahead (by the service clock). */
const ACTIVE = "(expires_at IS NULL OR expires_at > $2)";

interface DncListQuery {
  page: number;
  pageSize: number;
  search: string | undefined;
}

interface DncAddition {
  phoneNumbers: string[];
  reason: string | null;
  source: DncSourceName;
  expiresAt: Date | null;
}

export class DncStore {
  async list(db: Queryable, orgId: string, query: DncListQuery): Promise<{ rows: DncRow[]; total: number }> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (query.search) {
      params.push(likePattern(query.search));
      const options = [
        `reason ILIKE $${params.length} ESCAPE '\\'`,
        `phone_number ILIKE $${params.length} ESCAPE '\\'`,
      ];
      if (looksLikePhone(query.search)) {
        params.push(likePattern(phoneDigits(query.search)));
        options.push(`phone_digits LIKE $${params.length} ESCAPE '\\'`);
      }
      where.push(`(${options.join(" OR ")})`);
    }
    const filter = where.join(" AND ");
    return selectPage<DncRow>(db, {
      total: `SELECT count(*)::int AS total FROM comms.dnc_entries WHERE ${filter}`,
      rows: `SELECT ${DNC_COLUMNS} FROM comms.dnc_entries WHERE ${filter} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  /** The entry listing the number now, if any (expired entries do not count). */
  async active(db: Queryable, orgId: string, phone: string, now: Date): Promise<DncRow | undefined> {
    const result = await db.query<DncRow>(
      `SELECT ${DNC_COLUMNS} FROM comms.dnc_entries WHERE org_id = $1 AND ${ACTIVE} AND phone_number = $3`,
      [orgId, now, phone],
    );
    return result.rows[0];
  }

  /** Which of the numbers are listed now, in one query. */
  async blocked(db: Queryable, orgId: string, phones: readonly string[], now: Date): Promise<Set<string>> {
    if (phones.length === 0) return new Set();
    const result = await db.query<{ phone_number: string }>(
      `SELECT phone_number FROM comms.dnc_entries WHERE org_id = $1 AND ${ACTIVE} AND phone_number = ANY($3::text[])`,
      [orgId, now, [...new Set(phones)]],
    );
    return new Set(result.rows.map((row) => row.phone_number));
  }

  /**
   * Lists numbers (E.164, distinct) in one statement. A number already listed and unexpired is
   * left as it is; an expired entry is renewed. Returns the entries that were added or renewed.
   */
  async add(db: Queryable, orgId: string, addition: DncAddition, now: Date): Promise<DncRow[]> {
    if (addition.phoneNumbers.length === 0) return [];
    const ids = addition.phoneNumbers.map(() => newId());
    const digits = addition.phoneNumbers.map((phone) => phoneDigits(phone));
    const result = await db.query<DncRow>(
      `INSERT INTO comms.dnc_entries AS d (id, org_id, phone_number, phone_digits, reason, source, expires_at)
       SELECT t.id, $1, t.phone, t.digits, $5, $6, $7
       FROM unnest($2::uuid[], $3::text[], $4::text[]) AS t(id, phone, digits)
       ON CONFLICT (org_id, phone_number) DO UPDATE
         SET reason = excluded.reason, source = excluded.source, expires_at = excluded.expires_at,
             created_at = now(), updated_at = now()
         WHERE d.expires_at IS NOT NULL AND d.expires_at <= $8
       RETURNING ${DNC_COLUMNS.split(", ")
         .map((column) => `d.${column}`)
         .join(", ")}`,
      [orgId, ids, addition.phoneNumbers, digits, addition.reason, addition.source, addition.expiresAt, now],
    );
    return result.rows;
  }

  /** Takes a number off the list; returns its entry's id, or undefined when it was not listed. */
  async delete(db: Queryable, orgId: string, phone: string): Promise<string | undefined> {
    const result = await db.query<{ id: string }>(
      "DELETE FROM comms.dnc_entries WHERE org_id = $1 AND phone_number = $2 RETURNING id",
      [orgId, phone],
    );
    return result.rows[0]?.id;
  }
}
