import { DEFAULT_BUSINESS_HOURS } from "@voiceops/platform";
import { AdminClient, eventually, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

// Statistics on a year of history, against real PostgreSQL (DATABASE_URL): seeds the analytics
// read models of one organization with what a year of 1,000,000 activities and 100,000 service
// requests leaves in them (counters, quarter-hour buckets, records, the upcoming list), then times
// each statistics route through the REST API, one request at a time. It also measures how soon
// a write shows in the statistics (the events' path: outbox, bus, consumer).
// Usage: DATABASE_URL=... [NATS_URL=...] npm run bench:statistics -- [requests per route]

const rounds = Number(process.argv[2] ?? 200);
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is required: this measures PostgreSQL");
const database = await isolatedDatabase(base);
const system = await startSystem({ env: testEnv({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: "100000000" }) });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken), {
    timezone: "America/Chicago",
  });
  const org = tenant.orgId;
  const started = Date.now();
  // A year of quarter hours, each with about 28.5 activities of several types (1,000,000 in all)
  // and about 3 service requests created (100,000 in all).
  await system.db.query(
    `INSERT INTO analytics.buckets (org_id, metric, bucket, value)
     SELECT $1, m.metric, date_trunc('hour', now()) - (q * interval '15 minutes'), m.value + (q % 2)
     FROM generate_series(0, 35039) q
     CROSS JOIN (VALUES ('activities', 28), ('activity:CALL_ENDED', 8), ('activity:SMS_RECEIVED', 4), ('activity:SMS_SENT', 4),
                        ('activity:LOOKUP', 11), ('service_requests_created', 2)) AS m(metric, value)`,
    [org],
  );
  await system.db.query(
    `INSERT INTO analytics.records (org_id, kind, id, counters)
     SELECT $1, 'service_request', gen_random_uuid()::text,
            ARRAY['service_request_status:' || (ARRAY['new','scheduled','in_progress','on_hold','completed','cancelled'])[1 + g % 6],
                  'service_request_priority:' || (ARRAY['LOW','MEDIUM','HIGH','URGENT'])[1 + g % 4]]
     FROM generate_series(1, 100000) g`,
    [org],
  );
  await system.db.query(
    `INSERT INTO analytics.counters (org_id, name, value)
     SELECT $1, c, count(*) FROM analytics.records, unnest(counters) c WHERE org_id = $1 GROUP BY c
     UNION ALL VALUES ($1::uuid, 'service_requests_open', 66667), ($1::uuid, 'contacts_total', 40000), ($1::uuid, 'customers_total', 9000),
                      ($1::uuid, 'leads_open', 1200), ($1::uuid, 'quotes_pending', 300), ($1::uuid, 'emergencies_active', 4)`,
    [org],
  );
  await system.db.query(
    `INSERT INTO analytics.upcoming (org_id, type, ref_id, at, title)
     SELECT $1, (ARRAY['appointment','lead_follow_up','service_request_due'])[1 + g % 3], gen_random_uuid()::text, now() + g * interval '20 minutes', 'Item ' || g
     FROM generate_series(1, 3000) g`,
    [org],
  );
  // The day sums, in the organization's zone, as the consumers keep them.
  await system.db.query(
    `INSERT INTO analytics.org_settings (org_id, timezone, business_hours) VALUES ($1, 'America/Chicago', $2)`,
    [org, JSON.stringify(DEFAULT_BUSINESS_HOURS)],
  );
  await system.db.query(
    `INSERT INTO analytics.daily (org_id, metric, day, value)
     SELECT org_id, metric, (bucket AT TIME ZONE 'America/Chicago')::date, sum(value) FROM analytics.buckets WHERE org_id = $1 GROUP BY 1, 2, 3`,
    [org],
  );
  for (const table of ["buckets", "daily", "records", "upcoming"]) await system.db.query(`ANALYZE analytics.${table}`);
  process.stdout.write(
    `seeded a year of statistics in ${((Date.now() - started) / 1000).toFixed(1)} s (${system.db.kind}, ${system.bus.kind} bus)\n\n`,
  );
  process.stdout.write(`| request | p50 ms | p99 ms | (${rounds} sequential requests) |\n|---|---|---|---|\n`);
  const paths = [
    "/api/statistics/dashboard",
    "/api/statistics/metrics/time-series?metric=activities&days=365",
    "/api/statistics/metrics/time-series?metric=sms_messages&days=365",
    "/api/statistics/roi?days=365",
    "/api/statistics/activities/by-type?hours_back=8760",
    "/api/statistics/service-requests/by-status",
    "/api/statistics/upcoming?days=30",
  ];
  for (const path of paths) {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const res = await tenant.owner.get(path);
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(
      `| GET ${path} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | |\n`,
    );
  }

  // Freshness: from a write's answer to the statistics showing it.
  const lags: number[] = [];
  for (let i = 0; i < 50; i++) {
    const before = (await tenant.owner.get("/api/statistics/dashboard")).body.contacts_total as number;
    const t0 = performance.now();
    await tenant.owner.post("/api/contacts", { name: `Fresh ${i}` });
    await eventually(
      async () =>
        (await tenant.owner.get("/api/statistics/dashboard")).body.contacts_total > before ? true : undefined,
      30_000,
      5,
    );
    lags.push(performance.now() - t0);
  }
  lags.sort((a, b) => a - b);
  process.stdout.write(
    `\nwrite to statistics: p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms (50 writes)\n`,
  );
} finally {
  await system.stop();
  await database.drop();
}
