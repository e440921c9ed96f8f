-- The trace an event was consumed in (W3C traceparent; null with tracing off): each attempt of
-- its deliveries is a client span of that trace, and the receiver gets its traceparent.
ALTER TABLE webhooks.events ADD COLUMN traceparent text;
