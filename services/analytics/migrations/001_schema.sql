-- The analytics schema (created with its outbox and event ledger by the platform). Tables for
-- statistics built from the other services' events arrive with their routes.
SELECT 1;
