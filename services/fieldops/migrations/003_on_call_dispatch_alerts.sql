-- On-call schedules, emergency dispatches and urgent alerts. Technicians are the rows of
-- fieldops.service_providers. Schedules and dispatches keep their technician_id after the
-- technician is deleted (history), so there is no foreign key: writes lock the technician's
-- row instead (FOR UPDATE), which also serializes overlap checks and auto-picks per technician.
-- Time stamps come from the service's clock. Intervals are half-open [start, end).

CREATE TABLE fieldops.on_call_schedules (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  technician_id uuid NOT NULL,
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'cancelled')),
  notes text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (end_at > start_at)
);

-- Who is on call now, and overlap checks: a technician's scheduled schedules by time.
CREATE INDEX on_call_schedules_technician_idx ON fieldops.on_call_schedules (org_id, technician_id, start_at, end_at)
  WHERE status = 'scheduled';
-- The listing by range, by start.
CREATE INDEX on_call_schedules_org_start_idx ON fieldops.on_call_schedules (org_id, start_at, id)
  WHERE status = 'scheduled';

-- Statuses are stored as their API spelling. Active = neither completed nor cancelled.
CREATE TABLE fieldops.dispatches (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  -- A service request of the jobs service, checked over gRPC on create.
  service_request_id uuid NOT NULL,
  technician_id uuid,
  status text NOT NULL CHECK (status IN ('pending', 'assigned', 'en_route', 'on_site', 'completed', 'cancelled')),
  eta_at timestamptz,
  notes text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  cancelled_at timestamptz,
  -- Past pending a dispatch has a technician (a pending one may be cancelled without one).
  CHECK (status IN ('pending', 'cancelled') OR technician_id IS NOT NULL)
);

-- One active dispatch per service request.
CREATE UNIQUE INDEX dispatches_one_active_per_request_idx ON fieldops.dispatches (org_id, service_request_id)
  WHERE status NOT IN ('completed', 'cancelled');
-- Listing, newest first; by request; by technician (dispatches today, history).
CREATE INDEX dispatches_org_created_idx ON fieldops.dispatches (org_id, created_at DESC, id DESC);
CREATE INDEX dispatches_org_request_idx ON fieldops.dispatches (org_id, service_request_id, created_at DESC);
CREATE INDEX dispatches_org_technician_idx ON fieldops.dispatches (org_id, technician_id, created_at DESC)
  WHERE technician_id IS NOT NULL;
-- Who is busy now, and the active list.
CREATE INDEX dispatches_active_idx ON fieldops.dispatches (org_id, technician_id)
  WHERE status NOT IN ('completed', 'cancelled');

CREATE TABLE fieldops.urgent_alerts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  title text,
  description text,
  location text NOT NULL,
  alert_type text NOT NULL,
  resolution_status text NOT NULL DEFAULT 'open' CHECK (resolution_status IN ('open', 'acknowledged', 'resolved')),
  -- Links to records of crm and jobs, checked over gRPC on write.
  contact_id uuid,
  service_request_id uuid,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE INDEX urgent_alerts_org_created_idx ON fieldops.urgent_alerts (org_id, created_at DESC, id DESC);
CREATE INDEX urgent_alerts_org_status_idx ON fieldops.urgent_alerts (org_id, resolution_status, created_at DESC, id DESC);
CREATE INDEX urgent_alerts_org_type_idx ON fieldops.urgent_alerts (org_id, lower(alert_type), created_at DESC, id DESC);
CREATE INDEX urgent_alerts_org_location_idx ON fieldops.urgent_alerts (org_id, lower(location), created_at DESC, id DESC);
-- Links dropped when crm deletes a contact or jobs a service request.
CREATE INDEX urgent_alerts_org_contact_idx ON fieldops.urgent_alerts (org_id, contact_id) WHERE contact_id IS NOT NULL;
CREATE INDEX urgent_alerts_org_request_idx ON fieldops.urgent_alerts (org_id, service_request_id) WHERE service_request_id IS NOT NULL;
