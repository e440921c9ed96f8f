-- Service requests (jobs), with their quote and emergency columns. Open = not completed or
-- cancelled; the partial indexes below serve the lists and counts that look only at open jobs.
CREATE TABLE jobs.service_requests (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  -- Links to other services' records, checked over gRPC on write and cleared by consuming
  -- their deletion events.
  contact_id uuid,
  provider_id uuid,
  address text,
  category text,
  description text NOT NULL,
  priority text NOT NULL CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'URGENT')),
  status text NOT NULL CHECK (status IN ('new', 'scheduled', 'in_progress', 'on_hold', 'completed', 'cancelled')),
  due_at timestamptz,
  is_emergency boolean NOT NULL DEFAULT false,
  emergency_type text CHECK (emergency_type IN ('gas', 'water', 'electrical', 'hvac', 'structural', 'other')),
  emergency_priority integer CHECK (emergency_priority BETWEEN 1 AND 10),
  emergency_notes text,
  emergency_at timestamptz,
  quote_amount_cents bigint CHECK (quote_amount_cents >= 0),
  quote_diagnostic_fee_cents bigint CHECK (quote_diagnostic_fee_cents >= 0),
  quote_notes text,
  quote_status text CHECK (quote_status IN ('pending', 'approved', 'rejected', 'billed')),
  quote_updated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search_text text GENERATED ALWAYS AS (
    description || ' ' || coalesce(address, '') || ' ' || coalesce(category, '')
  ) STORED
);

CREATE INDEX service_requests_org_created_idx ON jobs.service_requests (org_id, created_at DESC, id DESC);
CREATE INDEX service_requests_org_status_idx ON jobs.service_requests (org_id, status, created_at DESC, id DESC);
CREATE INDEX service_requests_org_priority_idx ON jobs.service_requests (org_id, priority, created_at DESC, id DESC);
CREATE INDEX service_requests_org_contact_idx ON jobs.service_requests (org_id, contact_id, created_at DESC) WHERE contact_id IS NOT NULL;
CREATE INDEX service_requests_org_provider_idx ON jobs.service_requests (org_id, provider_id) WHERE provider_id IS NOT NULL;
CREATE INDEX service_requests_search_trgm_idx ON jobs.service_requests USING gin (search_text gin_trgm_ops);
-- due_days: open jobs by due time.
CREATE INDEX service_requests_open_due_idx ON jobs.service_requests (org_id, due_at, id)
  WHERE status NOT IN ('completed', 'cancelled') AND due_at IS NOT NULL;
-- The stats card counts open jobs only.
CREATE INDEX service_requests_open_idx ON jobs.service_requests (org_id)
  WHERE status NOT IN ('completed', 'cancelled');
-- Quotes awaiting approval, oldest first.
CREATE INDEX service_requests_pending_quote_idx ON jobs.service_requests (org_id, quote_updated_at, id)
  WHERE quote_status = 'pending';
-- Active emergencies, most urgent first.
CREATE INDEX service_requests_active_emergency_idx ON jobs.service_requests (org_id, emergency_priority, emergency_at, id)
  WHERE is_emergency AND status NOT IN ('completed', 'cancelled');
