import { newId, type Queryable } from "@voiceops/platform";

/** Customer-portal tokens, kept as hashes. */
export class PortalTokenStore {
  /** Revokes the contact's active tokens; resolves their ids. */
  async revokeActive(db: Queryable, orgId: string, contactId: string, at: Date): Promise<string[]> {
    const result = await db.query<{ id: string }>(
      `UPDATE crm.portal_tokens SET revoked_at = $3 WHERE org_id = $1 AND contact_id = $2 AND revoked_at IS NULL RETURNING id`,
      [orgId, contactId, at],
    );
    return result.rows.map((row) => row.id);
  }

  async insert(db: Queryable, orgId: string, contactId: string, hash: string, expiresAt: Date): Promise<string> {
    const id = newId();
    await db.query(
      `INSERT INTO crm.portal_tokens (id, org_id, contact_id, token_hash, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [id, orgId, contactId, hash, expiresAt],
    );
    return id;
  }

  /** The unrevoked, unexpired token with this hash. */
  async findActive(
    db: Queryable,
    hash: string,
    at: Date,
  ): Promise<{ org_id: string; contact_id: string; expires_at: Date } | undefined> {
    const result = await db.query<{ org_id: string; contact_id: string; expires_at: Date }>(
      `SELECT org_id, contact_id, expires_at FROM crm.portal_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2`,
      [hash, at],
    );
    return result.rows[0];
  }
}
