import type { Queryable } from "@voiceops/platform";

/** What comms keeps of a CRM contact: enough to show it on a call or message. */
export interface ContactCopy {
  id: string;
  name: string | null;
  phoneNumber: string | null;
  /** The contact's updated_at in the CRM: an older copy never overwrites a newer one. */
  version: Date;
}

export class ContactCopies {
  async save(db: Queryable, orgId: string, contact: ContactCopy): Promise<void> {
    await this.saveAll(db, [{ orgId, ...contact }]);
  }

  /**
   * Saves several copies in one statement, with the effect of saving them one after another:
   * of a contact given twice, the later of its newest versions is the one kept.
   */
  async saveAll(db: Queryable, copies: readonly (ContactCopy & { orgId: string })[]): Promise<void> {
    // One row per contact: a statement's ON CONFLICT may not update a row twice.
    const latest = new Map<string, ContactCopy & { orgId: string }>();
    for (const copy of copies) {
      const key = `${copy.orgId}/${copy.id.toLowerCase()}`;
      const kept = latest.get(key);
      if (!kept || kept.version <= copy.version) latest.set(key, copy);
    }
    const rows = [...latest.values()].map((copy) => ({
      org_id: copy.orgId,
      id: copy.id,
      name: copy.name,
      phone_number: copy.phoneNumber,
      version: copy.version,
    }));
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO comms.contacts AS c (org_id, id, name, phone_number, version)
       SELECT org_id, id, name, phone_number, version
       FROM jsonb_to_recordset($1::jsonb) AS r(org_id uuid, id uuid, name text, phone_number text, version timestamptz)
       ORDER BY org_id, id
       ON CONFLICT (org_id, id) DO UPDATE SET name = excluded.name, phone_number = excluded.phone_number, version = excluded.version
       WHERE c.version <= excluded.version`,
      [JSON.stringify(rows)],
      { prepared: true },
    );
  }

  async remove(db: Queryable, orgId: string, id: string): Promise<void> {
    await db.query(`DELETE FROM comms.contacts WHERE org_id = $1 AND id = $2`, [orgId, id]);
  }
}
