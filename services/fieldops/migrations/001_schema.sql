-- The fieldops schema (created with its outbox and event ledger by the platform). Tables for
-- service providers and technicians, on-call schedules, dispatch, urgent alerts and scheduling arrive with their routes.
SELECT 1;
