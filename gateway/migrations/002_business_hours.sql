-- An organization's opening hours, in its time zone: {"mon": [{"start": "08:00", "end": "17:00"}], ...}.
-- Existing organizations get the default week, Monday to Friday 08:00 to 17:00.
ALTER TABLE identity.organizations ADD COLUMN business_hours jsonb NOT NULL DEFAULT
  '{"mon": [{"start": "08:00", "end": "17:00"}], "tue": [{"start": "08:00", "end": "17:00"}], "wed": [{"start": "08:00", "end": "17:00"}], "thu": [{"start": "08:00", "end": "17:00"}], "fri": [{"start": "08:00", "end": "17:00"}], "sat": [], "sun": []}';
