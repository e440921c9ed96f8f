-- Service providers, who are also the technicians of the on-call schedule and of dispatch.
-- Every query filters by org_id; indexes lead with it.

-- array_to_string is only STABLE (it is polymorphic); for text[] it cannot change, so this
-- wrapper may be IMMUTABLE and feed the generated search column.
CREATE FUNCTION fieldops.text_array_join(items text[]) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT pg_catalog.array_to_string(items, ' ') $$;

CREATE TABLE fieldops.service_providers (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  name text NOT NULL,
  -- E.164, normalized with the organization's default country.
  phone_number text,
  email text,
  specialty text,
  skills text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'suspended')),
  is_on_call boolean NOT NULL DEFAULT false,
  notes text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Derived columns for search: digits of the phone (formatting ignored) and the human fields.
  phone_digits text GENERATED ALWAYS AS (regexp_replace(coalesce(phone_number, ''), '[^0-9]', '', 'g')) STORED,
  search_text text GENERATED ALWAYS AS (
    name || ' ' || coalesce(email, '') || ' ' || coalesce(specialty, '') || ' ' || coalesce(fieldops.text_array_join(skills), '')
  ) STORED
);

-- Listings: name order (A to Z, case-insensitive, ties by id), alone or with a filter.
CREATE INDEX service_providers_org_name_idx ON fieldops.service_providers (org_id, lower(name), id);
CREATE INDEX service_providers_org_status_name_idx ON fieldops.service_providers (org_id, status, lower(name), id);
CREATE INDEX service_providers_org_specialty_name_idx ON fieldops.service_providers (org_id, lower(specialty), lower(name), id);
CREATE INDEX service_providers_org_created_idx ON fieldops.service_providers (org_id, created_at DESC, id DESC);
-- Case-insensitive substring search (ILIKE) on the human text and the phone digits.
CREATE INDEX service_providers_search_trgm_idx ON fieldops.service_providers USING gin (search_text gin_trgm_ops);
CREATE INDEX service_providers_phone_trgm_idx ON fieldops.service_providers USING gin (phone_digits gin_trgm_ops);
