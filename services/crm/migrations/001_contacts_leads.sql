-- Contacts and leads. Every query filters by org_id; indexes lead with it.
CREATE TABLE crm.contacts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  name text,
  -- E.164, normalized with the organization's default country.
  phone_number text,
  email text,
  status text NOT NULL CHECK (status IN ('prospect', 'lead', 'customer', 'inactive')),
  company_name text,
  address text,
  notes text,
  tags text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Derived columns for search: digits of the phone (formatting ignored) and the human fields.
  phone_digits text GENERATED ALWAYS AS (regexp_replace(coalesce(phone_number, ''), '[^0-9]', '', 'g')) STORED,
  search_text text GENERATED ALWAYS AS (
    coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(company_name, '') || ' ' || coalesce(address, '')
  ) STORED
);

-- One contact per normalized phone number in an organization.
CREATE UNIQUE INDEX contacts_org_phone_key ON crm.contacts (org_id, phone_number) WHERE phone_number IS NOT NULL;
-- Listings: the prospects split and the three sorts.
CREATE INDEX contacts_people_name_idx ON crm.contacts (org_id, lower(name), id) WHERE status <> 'prospect';
CREATE INDEX contacts_prospects_name_idx ON crm.contacts (org_id, lower(name), id) WHERE status = 'prospect';
CREATE INDEX contacts_status_name_idx ON crm.contacts (org_id, status, lower(name), id);
CREATE INDEX contacts_org_created_idx ON crm.contacts (org_id, created_at DESC, id DESC);
-- Case-insensitive substring search (ILIKE) on text, digits and email.
CREATE INDEX contacts_search_trgm_idx ON crm.contacts USING gin (search_text gin_trgm_ops);
CREATE INDEX contacts_phone_trgm_idx ON crm.contacts USING gin (phone_digits gin_trgm_ops);
CREATE INDEX contacts_email_trgm_idx ON crm.contacts USING gin (email gin_trgm_ops);
CREATE INDEX contacts_org_email_idx ON crm.contacts (org_id, lower(email));

CREATE TABLE crm.leads (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  contact_id uuid NOT NULL REFERENCES crm.contacts (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('new', 'contacted', 'qualified', 'proposal', 'won', 'lost')),
  source text,
  notes text,
  estimated_value_cents bigint CHECK (estimated_value_cents >= 0),
  next_step text,
  next_step_due_at timestamptz,
  lost_reason text,
  won_at timestamptz,
  lost_at timestamptz,
  customer_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX leads_org_created_idx ON crm.leads (org_id, created_at DESC, id DESC);
CREATE INDEX leads_org_status_idx ON crm.leads (org_id, status, created_at DESC, id DESC);
CREATE INDEX leads_contact_idx ON crm.leads (contact_id);
-- due_days and stale_days look only at open leads.
CREATE INDEX leads_open_due_idx ON crm.leads (org_id, next_step_due_at, id)
  WHERE status NOT IN ('won', 'lost') AND next_step_due_at IS NOT NULL;
CREATE INDEX leads_open_stale_idx ON crm.leads (org_id, updated_at, id) WHERE status NOT IN ('won', 'lost');
-- The pipeline's recent wins and losses.
CREATE INDEX leads_org_won_idx ON crm.leads (org_id, won_at DESC) WHERE won_at IS NOT NULL;
CREATE INDEX leads_org_lost_idx ON crm.leads (org_id, lost_at DESC) WHERE lost_at IS NOT NULL;
CREATE INDEX leads_notes_trgm_idx ON crm.leads USING gin (notes gin_trgm_ops);
