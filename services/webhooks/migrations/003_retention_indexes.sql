-- Pruning past the retention (WEBHOOK_RETENTION_DAYS) finds old deliveries and events by their
-- time, and deleting an event looks for deliveries still referring to it.
CREATE INDEX deliveries_created ON webhooks.deliveries (created_at);
CREATE INDEX deliveries_event ON webhooks.deliveries (event_id);
CREATE INDEX events_created ON webhooks.events (created_at);
