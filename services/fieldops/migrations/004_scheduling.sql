-- Scheduling: appointment types and appointments. An appointment holds its technician (or, when
-- the organization has no technicians, the business itself) over `blocked`: its time widened by
-- its type's buffers. The exclusion constraint makes two active appointments of one resource
-- with overlapping blocked ranges impossible, whatever runs concurrently; bookings translate its
-- violation (23P01) into 409. Ranges are half-open [start, end), so back-to-back is allowed.

CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE fieldops.appointment_types (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  name text NOT NULL,
  description text,
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 5 AND 480),
  -- Null: step by the duration.
  slot_interval_minutes integer CHECK (slot_interval_minutes BETWEEN 5 AND 1440),
  buffer_before_minutes integer NOT NULL DEFAULT 0 CHECK (buffer_before_minutes BETWEEN 0 AND 240),
  buffer_after_minutes integer NOT NULL DEFAULT 0 CHECK (buffer_after_minutes BETWEEN 0 AND 240),
  min_notice_minutes integer NOT NULL DEFAULT 60 CHECK (min_notice_minutes BETWEEN 0 AND 525600),
  max_days_ahead integer NOT NULL DEFAULT 60 CHECK (max_days_ahead BETWEEN 1 AND 365),
  required_skills text[] NOT NULL DEFAULT '{}',
  is_active boolean NOT NULL DEFAULT true,
  -- Deleted types stay for the appointments that name them.
  deleted_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- The listing: by name, active ones (and all with include_inactive).
CREATE INDEX appointment_types_org_name_idx ON fieldops.appointment_types (org_id, lower(name), id) WHERE deleted_at IS NULL;

CREATE TABLE fieldops.appointments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  appointment_type_id uuid NOT NULL REFERENCES fieldops.appointment_types (id),
  -- A contact of the CRM, as it was when booked (name and phone shown with the appointment).
  contact_id uuid NOT NULL,
  contact_name text,
  contact_phone text,
  -- Null: the business itself is the resource (the organization had no technicians).
  technician_id uuid,
  service_request_id uuid,
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  blocked tstzrange NOT NULL,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'confirmed', 'completed', 'cancelled', 'no_show')),
  notes text,
  cancel_reason text,
  rescheduled_from_id uuid REFERENCES fieldops.appointments (id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (end_at > start_at),
  CHECK (blocked @> tstzrange(start_at, end_at)),
  -- No double booking: also serves the busy intervals of check-availability (org, resource, range).
  CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
    org_id WITH =,
    (coalesce(technician_id, '00000000-0000-0000-0000-000000000000'::uuid)) WITH =,
    blocked WITH &&
  ) WHERE (status IN ('scheduled', 'confirmed'))
);

-- The listing, soonest first, unfiltered and by each filter.
CREATE INDEX appointments_org_start_idx ON fieldops.appointments (org_id, start_at, id);
CREATE INDEX appointments_org_status_start_idx ON fieldops.appointments (org_id, status, start_at, id);
CREATE INDEX appointments_org_contact_start_idx ON fieldops.appointments (org_id, contact_id, start_at, id);
CREATE INDEX appointments_org_technician_start_idx ON fieldops.appointments (org_id, technician_id, start_at, id);
-- Busy intervals of a range, whatever the resource.
CREATE INDEX appointments_active_blocked_idx ON fieldops.appointments USING gist (org_id, blocked) WHERE status IN ('scheduled', 'confirmed');
