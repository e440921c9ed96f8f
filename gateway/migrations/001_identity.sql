-- Organizations and their API keys. Only a SHA-256 hash of each key is stored.
CREATE TABLE identity.organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  timezone text NOT NULL,
  default_country text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organizations_name_idx ON identity.organizations (lower(name), created_at);

CREATE TABLE identity.api_keys (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  name text,
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_org_idx ON identity.api_keys (org_id, created_at);
