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
    await db.query(
      `INSERT INTO comms.contacts AS c (org_id, id, name, phone_number, version) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, id) DO UPDATE SET name = excluded.name, phone_number = excluded.phone_number, version = excluded.version
       WHERE c.version <= excluded.version`,
      [orgId, contact.id, contact.name, contact.phoneNumber, contact.version],
    );
  }

  async remove(db: Queryable, orgId: string, id: string): Promise<void> {
    await db.query(`DELETE FROM comms.contacts WHERE org_id = $1 AND id = $2`, [orgId, id]);
  }
}
