-- The jobs schema (created with its outbox and event ledger by the platform). Tables for
-- service requests, quotes, emergencies and service listings arrive with their routes.
SELECT 1;
