-- Service listings: the catalog of services an organization offers. Every query filters by
-- org_id; indexes lead with it. Ids come from the application (time-ordered v7).
CREATE TABLE jobs.service_listings (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  name text NOT NULL CHECK (btrim(name) <> ''),
  description text,
  category text,
  price_cents bigint CHECK (price_cents >= 0),
  duration_minutes integer CHECK (duration_minutes >= 0),
  is_available boolean NOT NULL DEFAULT true,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- The human fields joined, for the trigram-indexed substring search.
  search_text text GENERATED ALWAYS AS (
    name || ' ' || coalesce(description, '') || ' ' || coalesce(category, '')
  ) STORED
);

-- Listings are ordered by lower(name), id; the flags filter them (alone or together).
CREATE INDEX service_listings_org_name_idx ON jobs.service_listings (org_id, lower(name), id);
CREATE INDEX service_listings_org_active_name_idx ON jobs.service_listings (org_id, is_active, is_available, lower(name), id);
CREATE INDEX service_listings_org_available_name_idx ON jobs.service_listings (org_id, is_available, lower(name), id);
-- Case-insensitive substring search (ILIKE) over name, description and category.
CREATE INDEX service_listings_search_trgm_idx ON jobs.service_listings USING gin (search_text gin_trgm_ops);
