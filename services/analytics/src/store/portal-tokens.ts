import type { Queryable } from "@voiceops/platform";

/** The CRM's portal tokens, as analytics counts them. */
export async function revokeTokens(tx: Queryable, orgId: string, tokenIds: string[]): Promise<void> {
  if (tokenIds.length === 0) return;
  await tx.query(`UPDATE analytics.portal_tokens SET revoked = true WHERE org_id = $1 AND token_id = ANY($2::uuid[])`, [
    orgId,
    tokenIds,
  ]);
}

export async function addPortalToken(
  tx: Queryable,
  orgId: string,
  tokenId: string,
  contactId: string,
  expiresAt: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO analytics.portal_tokens (org_id, token_id, contact_id, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (org_id, token_id) DO NOTHING`,
    [orgId, tokenId, contactId, expiresAt],
  );
}
