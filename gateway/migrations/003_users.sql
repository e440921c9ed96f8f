-- Dashboard users, their one-time set-up links, their sign-in sessions and failed sign-ins.
-- Only hashes of the set-up and session tokens are stored; passwords with scrypt.
CREATE TABLE identity.users (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  name text,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  password_hash text,
  last_sign_in_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Sign-in is by email alone, so an address belongs to one user across organizations.
CREATE UNIQUE INDEX users_email_idx ON identity.users (lower(email));
CREATE INDEX users_org_idx ON identity.users (org_id, created_at);

CREATE TABLE identity.setup_tokens (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX setup_tokens_expires_idx ON identity.setup_tokens (expires_at);

CREATE TABLE identity.sessions (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  -- The absolute end; the idle end is last_seen_at plus the idle time.
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON identity.sessions (user_id);
CREATE INDEX sessions_expires_idx ON identity.sessions (expires_at);
CREATE INDEX sessions_last_seen_idx ON identity.sessions (last_seen_at);

-- One row per failed sign-in, under the address and under the email ("addr:..." / "email:...").
CREATE TABLE identity.sign_in_failures (
  bucket text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_idx ON identity.sign_in_failures (bucket, at);
