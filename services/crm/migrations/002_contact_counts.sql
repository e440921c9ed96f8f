-- Contacts per organization and status, kept by triggers in the writing transaction, so an
-- unfiltered listing's total is a lookup instead of a count over every contact of the org.
CREATE TABLE crm.contact_counts (
  org_id uuid NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (org_id, status)
);

CREATE FUNCTION crm.contact_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crm.contact_counts AS c (org_id, status, n) VALUES (NEW.org_id, NEW.status, 1)
  ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION crm.contact_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE crm.contact_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status;
  RETURN NULL;
END $$;

CREATE TRIGGER contacts_counted_in AFTER INSERT ON crm.contacts
  FOR EACH ROW EXECUTE FUNCTION crm.contact_counts_add();
CREATE TRIGGER contacts_counted_out AFTER DELETE ON crm.contacts
  FOR EACH ROW EXECUTE FUNCTION crm.contact_counts_remove();
CREATE TRIGGER contacts_recounted_out AFTER UPDATE OF status ON crm.contacts
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION crm.contact_counts_remove();
CREATE TRIGGER contacts_recounted_in AFTER UPDATE OF status ON crm.contacts
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION crm.contact_counts_add();

INSERT INTO crm.contact_counts (org_id, status, n)
SELECT org_id, status, count(*) FROM crm.contacts GROUP BY org_id, status;
