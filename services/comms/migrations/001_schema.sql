-- The comms schema (created with its outbox and event ledger by the platform). Tables for
-- conversations, messages, caller memory, activities and calls arrive with their routes.
SELECT 1;
