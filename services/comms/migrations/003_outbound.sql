-- Outbound calling: the do-not-call list, campaigns with their contacts, and call requests
-- handed to the voice runtime. Statuses are stored as their API spelling ("running",
-- "skipped_dnc"); calling windows as HH:MM text and day names, read with luxon per local date.

CREATE TABLE comms.dnc_entries (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  phone_number text NOT NULL,
  -- Digits of the number, for searches that ignore formatting.
  phone_digits text NOT NULL,
  reason text,
  source text NOT NULL,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT dnc_entries_org_phone_key UNIQUE (org_id, phone_number)
);
CREATE INDEX dnc_entries_org_newest ON comms.dnc_entries (org_id, created_at DESC, id DESC);
CREATE INDEX dnc_entries_digits_trgm ON comms.dnc_entries USING gin (phone_digits gin_trgm_ops);

CREATE TABLE comms.campaigns (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  name text NOT NULL,
  agent_prompt text,
  status text NOT NULL DEFAULT 'draft',
  window_start text NOT NULL,
  window_end text NOT NULL,
  window_days text[] NOT NULL,
  timezone text NOT NULL,
  max_attempts integer NOT NULL,
  retry_delay_minutes integer NOT NULL,
  max_concurrent_calls integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);
CREATE INDEX campaigns_org_newest ON comms.campaigns (org_id, created_at DESC, id DESC);
CREATE INDEX campaigns_running ON comms.campaigns (id) WHERE status = 'running';

CREATE TABLE comms.campaign_contacts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  campaign_id uuid NOT NULL REFERENCES comms.campaigns (id) ON DELETE CASCADE,
  phone_number text NOT NULL,
  name text,
  email text,
  contact_id uuid,
  timezone text,
  variables jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  disposition text,
  last_session_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT campaign_contacts_phone_key UNIQUE (campaign_id, phone_number)
);
CREATE INDEX campaign_contacts_by_status ON comms.campaign_contacts (campaign_id, status, next_attempt_at);
CREATE INDEX campaign_contacts_in_order ON comms.campaign_contacts (campaign_id, id);

CREATE TABLE comms.call_requests (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  phone_number text NOT NULL,
  contact_id uuid,
  campaign_id uuid REFERENCES comms.campaigns (id) ON DELETE CASCADE,
  campaign_contact_id uuid REFERENCES comms.campaign_contacts (id) ON DELETE CASCADE,
  agent_prompt text,
  variables jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL,
  scheduled_for timestamptz NOT NULL,
  -- Claims by the voice runtime, and how many this request may have (lease expiries included).
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  session_id text,
  disposition text,
  -- The calling window this request is held to, in this zone.
  timezone text NOT NULL,
  window_start text NOT NULL,
  window_end text NOT NULL,
  window_days text[] NOT NULL,
  -- Set when comms.outbound_call.requested went out, with the end of the opening it went out in.
  announced_at timestamptz,
  window_closes_at timestamptz,
  dialed_at timestamptz,
  lease_expires_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX call_requests_org_newest ON comms.call_requests (org_id, created_at DESC, id DESC);
CREATE INDEX call_requests_queued ON comms.call_requests (org_id, scheduled_for) WHERE status = 'queued';
CREATE INDEX call_requests_due ON comms.call_requests (scheduled_for) WHERE status = 'queued';
CREATE INDEX call_requests_leased ON comms.call_requests (lease_expires_at) WHERE status = 'dialing';
CREATE INDEX call_requests_of_campaign ON comms.call_requests (campaign_id, created_at DESC) WHERE campaign_id IS NOT NULL;
