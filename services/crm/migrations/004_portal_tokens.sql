-- Customer-portal tokens: only a hash of each token is kept; a contact's tokens go with it.
CREATE TABLE crm.portal_tokens (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  contact_id uuid NOT NULL REFERENCES crm.contacts (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX portal_tokens_active_by_contact ON crm.portal_tokens (org_id, contact_id) WHERE revoked_at IS NULL;
