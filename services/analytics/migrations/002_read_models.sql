-- Read models of the statistics, fed only by the other services' events.

-- Current figures per organization (open requests, customers, pending quotes...), kept by
-- adding each record's change to them, so reading them never scans the records.
CREATE TABLE analytics.counters (
  org_id uuid NOT NULL,
  name text NOT NULL,
  value bigint NOT NULL,
  PRIMARY KEY (org_id, name)
);

-- The last known state of each record the counters depend on: the counters it adds one to,
-- and whether it is gone (a tombstone, so a late event cannot bring it back).
CREATE TABLE analytics.records (
  org_id uuid NOT NULL,
  kind text NOT NULL,
  id text NOT NULL,
  counters text[] NOT NULL,
  attrs jsonb NOT NULL DEFAULT '{}',
  version timestamptz,
  deleted boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, kind, id)
);

-- What happened when: counts and sums per metric and quarter hour (UTC). Every time zone's
-- offset is a multiple of 15 minutes, so these add up exactly into any zone's local days.
CREATE TABLE analytics.buckets (
  org_id uuid NOT NULL,
  metric text NOT NULL,
  bucket timestamptz NOT NULL,
  value bigint NOT NULL,
  PRIMARY KEY (org_id, metric, bucket)
);

-- What comes up: one row per record with a moment ahead (an appointment, a follow-up...);
-- an on-call shift also has its end and its technician.
CREATE TABLE analytics.upcoming (
  org_id uuid NOT NULL,
  type text NOT NULL,
  ref_id text NOT NULL,
  at timestamptz NOT NULL,
  ends_at timestamptz,
  title text NOT NULL,
  contact_id uuid,
  technician_id uuid,
  PRIMARY KEY (org_id, type, ref_id)
);
CREATE INDEX upcoming_by_time ON analytics.upcoming (org_id, at);

-- Portal tokens: whether one is active depends on when the question is asked.
CREATE TABLE analytics.portal_tokens (
  org_id uuid NOT NULL,
  token_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, token_id)
);
CREATE INDEX portal_tokens_active ON analytics.portal_tokens (org_id, expires_at) WHERE NOT revoked;
