-- Contact counts without a shared row to lock. Each write used to add itself to its
-- organization's row of crm.contact_counts, whose lock it then held until its transaction
-- ended: an organization's writes waited on one another (under 50 concurrent writers, 8 of the
-- pool's 10 connections were waiting on that lock). Writes now append their changes to
-- crm.contact_count_changes, where no two writers share a row; a listing's total adds the
-- changes not yet folded to the counts, and the crm service folds them in every few seconds
-- (crm.fold_contact_count_changes(), one statement, so a total never sees a change twice).
CREATE TABLE crm.contact_count_changes (
  org_id uuid NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX contact_count_changes_org_idx ON crm.contact_count_changes (org_id, status);

CREATE OR REPLACE FUNCTION crm.contact_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crm.contact_count_changes (org_id, status, n)
  SELECT org_id, status, count(*) FROM new_rows GROUP BY org_id, status;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION crm.contact_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crm.contact_count_changes (org_id, status, n)
  SELECT org_id, status, -count(*) FROM old_rows GROUP BY org_id, status;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION crm.contact_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crm.contact_count_changes (org_id, status, n)
  SELECT org_id, status, sum(k) FROM (
    SELECT o.org_id, o.status, -1 AS k FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.status IS DISTINCT FROM o.status
    UNION ALL
    SELECT n.org_id, n.status, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.status IS DISTINCT FROM o.status
  ) moved
  GROUP BY org_id, status
  HAVING sum(k) <> 0;
  RETURN NULL;
END $$;

-- Moves the changes into the counts. One folder at a time (replicas of the service may call it
-- together); the others return at once and leave the changes to the next pass.
CREATE FUNCTION crm.fold_contact_count_changes() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('crm.fold_contact_count_changes')) THEN
    RETURN;
  END IF;
  WITH moved AS (DELETE FROM crm.contact_count_changes RETURNING org_id, status, n)
  INSERT INTO crm.contact_counts AS c (org_id, status, n)
  SELECT org_id, status, sum(n) FROM moved GROUP BY org_id, status
  ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
END $$;
