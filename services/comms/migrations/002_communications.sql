-- Conversations with their messages, the activity log, the calls read from it, and the names
-- and numbers of the CRM's contacts that calls and messages show. Every query filters by org_id;
-- indexes lead with it and match each listing's filters and order.

CREATE TABLE comms.conversations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  -- E.164 for phone, sms and whatsapp; any visitor id for web.
  phone_number text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('phone', 'sms', 'whatsapp', 'web')),
  is_active boolean NOT NULL DEFAULT true,
  conversation_state jsonb NOT NULL DEFAULT '{}'::jsonb,
  message_count integer NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL,
  -- Moves with every write and message: "most recently active" orders by it.
  updated_at timestamptz NOT NULL
);

-- At most one active conversation per phone and channel: the upsert's target.
CREATE UNIQUE INDEX conversations_active_key ON comms.conversations (org_id, phone_number, channel) WHERE is_active;
CREATE INDEX conversations_org_recent_idx ON comms.conversations (org_id, updated_at DESC, id DESC);
CREATE INDEX conversations_org_phone_idx ON comms.conversations (org_id, phone_number, updated_at DESC, id DESC);
-- Caller memory: the caller's latest phone conversation that holds a summary.
CREATE INDEX conversations_memory_idx ON comms.conversations (org_id, phone_number, updated_at DESC, id DESC)
  WHERE channel = 'phone' AND conversation_state ? 'summary';

CREATE TABLE comms.conversation_messages (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  conversation_id uuid NOT NULL REFERENCES comms.conversations (id) ON DELETE CASCADE,
  -- Position in the conversation (1, 2, ...): the order messages were logged in.
  position integer NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  content text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL,
  UNIQUE (conversation_id, position)
);

CREATE TABLE comms.activities (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  activity_type text NOT NULL CHECK (activity_type IN (
    'CALL_STARTED', 'CALL_ENDED', 'CALL_TRANSFERRED', 'SMS_RECEIVED', 'SMS_SENT', 'WHATSAPP_RECEIVED',
    'WHATSAPP_SENT', 'WEB_CHAT', 'EMAIL_SENT', 'LEAD_CREATED', 'SERVICE_REQUEST_CREATED', 'QUOTE_SENT',
    'APPOINTMENT_BOOKED', 'DISPATCH_CREATED', 'CALLBACK_REQUESTED', 'NOTE', 'LOOKUP')),
  description text,
  contact_id uuid,
  service_request_id uuid,
  session_id text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  source text NOT NULL CHECK (source IN ('api', 'internal')),
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  -- For message activities: the customer's number (E.164) or web visitor id, fixed when the
  -- activity is recorded (metadata, else the contact's number).
  customer_phone text,
  message_channel text GENERATED ALWAYS AS (CASE activity_type
    WHEN 'SMS_RECEIVED' THEN 'sms' WHEN 'SMS_SENT' THEN 'sms'
    WHEN 'WHATSAPP_RECEIVED' THEN 'whatsapp' WHEN 'WHATSAPP_SENT' THEN 'whatsapp'
    WHEN 'WEB_CHAT' THEN 'web' END) STORED,
  -- A web chat exchange is both; direction filters on it use the channel alone.
  message_direction text GENERATED ALWAYS AS (CASE activity_type
    WHEN 'SMS_RECEIVED' THEN 'inbound' WHEN 'WHATSAPP_RECEIVED' THEN 'inbound'
    WHEN 'SMS_SENT' THEN 'outbound' WHEN 'WHATSAPP_SENT' THEN 'outbound' END) STORED
);

-- GET /api/activities: newest first, without lookups (default) or with them.
CREATE INDEX activities_org_recent_idx ON comms.activities (org_id, occurred_at DESC, id DESC) WHERE activity_type <> 'LOOKUP';
CREATE INDEX activities_org_all_recent_idx ON comms.activities (org_id, occurred_at DESC, id DESC);
CREATE INDEX activities_org_type_idx ON comms.activities (org_id, activity_type, occurred_at DESC, id DESC);
CREATE INDEX activities_org_contact_idx ON comms.activities (org_id, contact_id, occurred_at DESC, id DESC) WHERE contact_id IS NOT NULL;
CREATE INDEX activities_org_request_idx ON comms.activities (org_id, service_request_id, occurred_at DESC, id DESC) WHERE service_request_id IS NOT NULL;
-- A call's activities, oldest first; deleting a call.
CREATE INDEX activities_org_session_idx ON comms.activities (org_id, session_id, occurred_at, id) WHERE session_id IS NOT NULL;
-- GET /api/messages: per channel, per channel and direction, per channel and customer.
CREATE INDEX activities_messages_idx ON comms.activities (org_id, message_channel, occurred_at DESC, id DESC) WHERE message_channel IS NOT NULL;
CREATE INDEX activities_messages_direction_idx ON comms.activities (org_id, message_channel, message_direction, occurred_at DESC, id DESC)
  WHERE message_direction IS NOT NULL;
CREATE INDEX activities_messages_phone_idx ON comms.activities (org_id, message_channel, customer_phone, occurred_at DESC, id DESC)
  WHERE message_channel IS NOT NULL AND customer_phone IS NOT NULL;

-- Activities per organization and type, kept by statement triggers in the writing transaction,
-- so the totals of unfiltered listings are lookups instead of counts over millions of rows.
CREATE TABLE comms.activity_counts (
  org_id uuid NOT NULL,
  activity_type text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (org_id, activity_type)
);

CREATE FUNCTION comms.activity_counts_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO comms.activity_counts AS c (org_id, activity_type, n)
  SELECT org_id, activity_type, count(*) FROM added GROUP BY org_id, activity_type
  ON CONFLICT (org_id, activity_type) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION comms.activity_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE comms.activity_counts c SET n = c.n - r.n
  FROM (SELECT org_id, activity_type, count(*) AS n FROM removed GROUP BY org_id, activity_type) r
  WHERE c.org_id = r.org_id AND c.activity_type = r.activity_type;
  RETURN NULL;
END $$;

CREATE TRIGGER activity_counts_insert AFTER INSERT ON comms.activities
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION comms.activity_counts_added();
CREATE TRIGGER activity_counts_delete AFTER DELETE ON comms.activities
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION comms.activity_counts_removed();

-- The call of each session: its latest CALL_ENDED activity, with the columns the call
-- listing filters and sorts on (copied from the activity's metadata when it is recorded).
CREATE TABLE comms.calls (
  org_id uuid NOT NULL,
  session_id text NOT NULL,
  activity_id uuid NOT NULL UNIQUE REFERENCES comms.activities (id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('phone', 'web')),
  occurred_at timestamptz NOT NULL,
  duration_seconds double precision,
  has_transcription boolean NOT NULL,
  PRIMARY KEY (org_id, session_id)
);

CREATE INDEX calls_org_recent_idx ON comms.calls (org_id, occurred_at DESC, session_id DESC);
CREATE INDEX calls_org_channel_idx ON comms.calls (org_id, channel, occurred_at DESC, session_id DESC);

CREATE TABLE comms.call_counts (
  org_id uuid NOT NULL,
  channel text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (org_id, channel)
);

CREATE FUNCTION comms.call_counts_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO comms.call_counts AS c (org_id, channel, n)
  SELECT org_id, channel, count(*) FROM added GROUP BY org_id, channel
  ON CONFLICT (org_id, channel) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION comms.call_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE comms.call_counts c SET n = c.n - r.n
  FROM (SELECT org_id, channel, count(*) AS n FROM removed GROUP BY org_id, channel) r
  WHERE c.org_id = r.org_id AND c.channel = r.channel;
  RETURN NULL;
END $$;

CREATE TRIGGER call_counts_insert AFTER INSERT ON comms.calls
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION comms.call_counts_added();
CREATE TRIGGER call_counts_delete AFTER DELETE ON comms.calls
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION comms.call_counts_removed();

-- Names and numbers of the CRM's contacts, for the calls and messages that link to them: kept
-- from the CRM's events and from the reference checks of writes (newest version wins).
CREATE TABLE comms.contacts (
  org_id uuid NOT NULL,
  id uuid NOT NULL,
  name text,
  phone_number text,
  version timestamptz NOT NULL,
  PRIMARY KEY (org_id, id)
);
