-- Slot holds: a caller's slot kept free for a few minutes while they decide. A hold and an
-- appointment of one resource may not overlap either, so both claim their time in ONE table,
-- `reservations`, whose exclusion constraint refuses any overlap whatever runs concurrently:
-- an active appointment's claim is kept by a trigger (whatever changes its status), a hold's is
-- made with it and goes with it. A constraint cannot read the clock, so an expired hold keeps
-- its claim until deleted: whoever claims a resource's time first deletes the expired holds in
-- the way (with the service's clock), in the same transaction.

CREATE TABLE fieldops.slot_holds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  appointment_type_id uuid NOT NULL REFERENCES fieldops.appointment_types (id),
  -- Null: the business itself is the resource (the organization had no technicians).
  technician_id uuid,
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  -- What the booking would hold: the slot widened by the type's buffers.
  blocked tstzrange NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  CHECK (end_at > start_at),
  CHECK (blocked @> tstzrange(start_at, end_at))
);

-- Live holds meeting a range (check-availability), expired ones in a claim's way.
CREATE INDEX slot_holds_org_blocked_idx ON fieldops.slot_holds USING gist (org_id, blocked);

CREATE TABLE fieldops.reservations (
  org_id uuid NOT NULL,
  -- The technician, or the nil uuid for the business itself.
  resource_id uuid NOT NULL,
  blocked tstzrange NOT NULL,
  appointment_id uuid UNIQUE REFERENCES fieldops.appointments (id) ON DELETE CASCADE,
  hold_id uuid UNIQUE REFERENCES fieldops.slot_holds (id) ON DELETE CASCADE,
  CHECK (num_nonnulls(appointment_id, hold_id) = 1),
  CONSTRAINT reservations_no_overlap EXCLUDE USING gist (org_id WITH =, resource_id WITH =, blocked WITH &&)
);

CREATE FUNCTION fieldops.appointment_reservation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM fieldops.reservations WHERE appointment_id = OLD.id;
  END IF;
  IF NEW.status IN ('scheduled', 'confirmed') THEN
    INSERT INTO fieldops.reservations (org_id, resource_id, blocked, appointment_id)
    VALUES (NEW.org_id, coalesce(NEW.technician_id, '00000000-0000-0000-0000-000000000000'::uuid), NEW.blocked, NEW.id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER appointment_reservation_insert AFTER INSERT ON fieldops.appointments
  FOR EACH ROW EXECUTE FUNCTION fieldops.appointment_reservation();

-- Only a change of what the appointment claims (confirming one changes nothing).
CREATE TRIGGER appointment_reservation_update AFTER UPDATE ON fieldops.appointments
  FOR EACH ROW WHEN (
    (OLD.status IN ('scheduled', 'confirmed')) IS DISTINCT FROM (NEW.status IN ('scheduled', 'confirmed'))
    OR OLD.blocked IS DISTINCT FROM NEW.blocked
    OR OLD.technician_id IS DISTINCT FROM NEW.technician_id
    OR OLD.org_id IS DISTINCT FROM NEW.org_id
  ) EXECUTE FUNCTION fieldops.appointment_reservation();

CREATE FUNCTION fieldops.hold_reservation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fieldops.reservations (org_id, resource_id, blocked, hold_id)
  VALUES (NEW.org_id, coalesce(NEW.technician_id, '00000000-0000-0000-0000-000000000000'::uuid), NEW.blocked, NEW.id);
  RETURN NULL;
END $$;

CREATE TRIGGER hold_reservation_insert AFTER INSERT ON fieldops.slot_holds
  FOR EACH ROW EXECUTE FUNCTION fieldops.hold_reservation();

INSERT INTO fieldops.reservations (org_id, resource_id, blocked, appointment_id)
SELECT org_id, coalesce(technician_id, '00000000-0000-0000-0000-000000000000'::uuid), blocked, id
FROM fieldops.appointments WHERE status IN ('scheduled', 'confirmed');
