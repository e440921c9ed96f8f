-- Endpoints an organization's events are posted to.
CREATE TABLE webhooks.endpoints (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  url text NOT NULL,
  description text,
  event_types text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('gone', 'failing', 'manual')),
  secret text NOT NULL,
  -- The secret before the last rotation, valid (and signed with) until previous_secret_until.
  previous_secret text,
  previous_secret_until timestamptz,
  -- Since when every delivery to it has failed (null after a success): 5 days of it disable it.
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX endpoints_org_created ON webhooks.endpoints (org_id, created_at DESC, id DESC);

-- Each event recorded once, with the body every delivery of it posts.
CREATE TABLE webhooks.events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);

-- One event to one endpoint.
CREATE TABLE webhooks.deliveries (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  endpoint_id uuid NOT NULL REFERENCES webhooks.endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhooks.events (id),
  event_type text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'exhausted')),
  attempts integer NOT NULL DEFAULT 0,
  -- When the next attempt is due; null when none is (succeeded, exhausted).
  next_attempt_at timestamptz,
  -- A worker holds the delivery until then; another replica takes it over after.
  leased_until timestamptz,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_response_body text,
  last_error text,
  last_duration_ms integer,
  created_at timestamptz NOT NULL,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX deliveries_due ON webhooks.deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX deliveries_log ON webhooks.deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhooks.attempts (
  delivery_id uuid NOT NULL REFERENCES webhooks.deliveries (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  response_status integer,
  duration_ms integer NOT NULL,
  error text
);
CREATE INDEX attempts_delivery ON webhooks.attempts (delivery_id, at);
