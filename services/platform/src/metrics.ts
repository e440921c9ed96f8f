import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** One registry per process; in embedded mode every component reports into it. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Histogram({
  name: "http_request_duration_seconds",
  help: "REST requests by route and status",
  labelNames: ["method", "route", "status"],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const rpcRequests = new Histogram({
  name: "rpc_duration_seconds",
  help: "RPCs served, by service, method and code",
  labelNames: ["service", "method", "code"],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

export const outboxBacklog = new Gauge({
  name: "outbox_backlog",
  help: "Events committed but not yet published, by schema",
  labelNames: ["schema"],
  registers: [registry],
});

export const outboxPublished = new Counter({
  name: "outbox_published_total",
  help: "Events published from the outbox, by schema",
  labelNames: ["schema"],
  registers: [registry],
});

export const outboxPublishLag = new Histogram({
  name: "outbox_publish_lag_seconds",
  help: "Time from an event's commit to the bus acknowledging its publication, by schema",
  labelNames: ["schema"],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const eventsConsumed = new Counter({
  name: "events_consumed_total",
  help: "Events handled by durable consumers, by consumer and outcome",
  labelNames: ["consumer", "outcome"],
  registers: [registry],
});

export const consumerPending = new Gauge({
  name: "events_consumer_pending",
  help: "Events waiting for a durable consumer (its lag), by consumer",
  labelNames: ["consumer"],
  registers: [registry],
});

export const webhookDeliveryAttempts = new Counter({
  name: "webhook_delivery_attempts_total",
  help: "Webhook delivery attempts, by outcome (succeeded, failed, exhausted)",
  labelNames: ["outcome"],
  registers: [registry],
});

/** A connection pool as the pool gauges read it (pg's Pool). */
interface WatchedPool {
  readonly waitingCount: number;
  readonly totalCount: number;
}
const pools = new Map<WatchedPool, string>();

/** Reports a PostgreSQL pool under `name` until the returned function is called (its close). */
export function watchPool(name: string, pool: WatchedPool): () => void {
  pools.set(pool, name);
  return () => pools.delete(pool);
}

// The pool gauges are read by their collect() on each scrape: registering them is all they need.
new Gauge({
  name: "db_pool_waiting",
  help: "Queries waiting for a free PostgreSQL connection of the pool, by pool",
  labelNames: ["pool"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [pool, name] of pools) this.inc({ pool: name }, pool.waitingCount);
  },
});

new Gauge({
  name: "db_pool_connections",
  help: "Open PostgreSQL connections of the pool, by pool",
  labelNames: ["pool"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [pool, name] of pools) this.inc({ pool: name }, pool.totalCount);
  },
});
