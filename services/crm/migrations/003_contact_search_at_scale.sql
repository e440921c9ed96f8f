-- Contacts at scale: one organization's search must not slow down with every other
-- organization's rows, and bulk writes must not upsert the same counter row once per row.

-- Trigram indexes that lead with the organization (btree_gin indexes the uuid in a GIN index):
-- a search scans only its own organization's entries of the trigrams it asks for.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX contacts_org_search_trgm_idx ON crm.contacts USING gin (org_id, search_text gin_trgm_ops);
CREATE INDEX contacts_org_phone_trgm_idx ON crm.contacts USING gin (org_id, phone_digits gin_trgm_ops);
CREATE INDEX contacts_org_email_trgm_idx ON crm.contacts USING gin (org_id, email gin_trgm_ops);
DROP INDEX crm.contacts_search_trgm_idx;
DROP INDEX crm.contacts_phone_trgm_idx;
DROP INDEX crm.contacts_email_trgm_idx;

-- The per-status counts, kept once per statement from its transition tables instead of once
-- per row (an INSERT ... SELECT of 50,000 contacts is one upsert per organization and status).
DROP TRIGGER contacts_counted_in ON crm.contacts;
DROP TRIGGER contacts_counted_out ON crm.contacts;
DROP TRIGGER contacts_recounted_out ON crm.contacts;
DROP TRIGGER contacts_recounted_in ON crm.contacts;
DROP FUNCTION crm.contact_counts_add();
DROP FUNCTION crm.contact_counts_remove();

CREATE FUNCTION crm.contact_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crm.contact_counts AS c (org_id, status, n)
  SELECT org_id, status, count(*) FROM new_rows GROUP BY org_id, status
  ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE FUNCTION crm.contact_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE crm.contact_counts c SET n = c.n - d.k
  FROM (SELECT org_id, status, count(*) AS k FROM old_rows GROUP BY org_id, status) d
  WHERE c.org_id = d.org_id AND c.status = d.status;
  RETURN NULL;
END $$;

-- Statement triggers with transition tables cannot name columns, so this runs on every UPDATE;
-- it changes the counts only where statuses moved.
CREATE FUNCTION crm.contact_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crm.contact_counts AS c (org_id, status, n)
  SELECT org_id, status, sum(k) FROM (
    SELECT o.org_id, o.status, -1 AS k FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.status IS DISTINCT FROM o.status
    UNION ALL
    SELECT n.org_id, n.status, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.status IS DISTINCT FROM o.status
  ) moved
  GROUP BY org_id, status
  ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE TRIGGER contacts_counted_in AFTER INSERT ON crm.contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crm.contact_counts_inserted();
CREATE TRIGGER contacts_counted_out AFTER DELETE ON crm.contacts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crm.contact_counts_deleted();
CREATE TRIGGER contacts_recounted AFTER UPDATE ON crm.contacts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crm.contact_counts_updated();
