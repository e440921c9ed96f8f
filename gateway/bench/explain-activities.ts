import { AdminClient, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import type { Queryable } from "@voiceops/platform";
import { startSystem } from "../src/system.js";

// The activity log at scale, on real PostgreSQL (DATABASE_URL): seeds N activities (5,000,000 by
// default) in one organization of a scratch database with one INSERT ... SELECT generate_series,
// then, for the first page of each listing the issue names (and a few filtered ones), captures
// the statement the comms service runs, reads its plan and timings with EXPLAIN ANALYZE, and
// times the whole request through the REST API. Usage:
//   DATABASE_URL=postgres://... npm run bench:activities -- [N] [runs]

const count = Number(process.argv[2] ?? 5_000_000);
const runs = Number(process.argv[3] ?? 100);
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is required: this measures PostgreSQL");

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

const database = await isolatedDatabase(base);
const system = await startSystem({
  env: testEnv({ DATABASE_URL: database.url, NATS_URL: "", RATE_LIMIT_PER_MINUTE: "100000000" }),
});
try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const other = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const db = system.db;

  // One organization of `count` activities, one every 6 seconds back from now: half of them plain
  // lookups, a tenth calls (a third of them web), SMS both ways, web chats, WhatsApp and notes.
  // Seeding runs far longer than the pool's statement timeout allows a request.
  const unbounded = <T>(fn: (tx: Queryable) => Promise<T>) =>
    db.transaction(async (tx) => {
      await tx.query("SET LOCAL statement_timeout = 0");
      return fn(tx);
    });
  const seed = (orgId: string, n: number) =>
    unbounded((tx) =>
      tx.query(
        `INSERT INTO comms.activities (id, org_id, activity_type, description, contact_id, session_id, metadata, source, occurred_at, created_at, customer_phone)
       SELECT (lpad(to_hex((extract(epoch FROM ts.at) * 1000)::bigint), 12, '0') || '7000' || '8' || substr(md5($1::uuid::text), 1, 3) || lpad(to_hex(g), 12, '0'))::uuid,
              $1::uuid, t.type,
              'Activity ' || g,
              CASE WHEN g % 7 = 0 THEN ('00000000-0000-4000-8000-' || lpad((g % 1000)::text, 12, '0'))::uuid END,
              CASE WHEN t.type IN ('CALL_ENDED', 'CALL_STARTED') THEN 'sess-' || (g / 20) END,
              CASE t.type
                WHEN 'CALL_ENDED' THEN jsonb_build_object('duration_seconds', g % 900, 'channel', CASE WHEN g % 3 = 0 THEN 'web' ELSE 'phone' END,
                                                         'transcription', 'Caller: hello', 'from_number', '+1555' || lpad((g % 100000)::text, 7, '0'))
                WHEN 'SMS_RECEIVED' THEN jsonb_build_object('body', 'Message ' || g, 'from_number', '+1555' || lpad((g % 100000)::text, 7, '0'))
                WHEN 'SMS_SENT' THEN jsonb_build_object('body', 'Reply ' || g, 'to_number', '+1555' || lpad((g % 100000)::text, 7, '0'))
                WHEN 'WEB_CHAT' THEN jsonb_build_object('visitor_message', 'Question ' || g, 'reply', 'Answer ' || g, 'visitor_id', 'visitor-' || (g % 5000))
                ELSE '{}'::jsonb END,
              'internal', ts.at, now(),
              CASE WHEN t.type IN ('SMS_RECEIVED', 'SMS_SENT', 'WHATSAPP_RECEIVED') THEN '+1555' || lpad((g % 100000)::text, 7, '0')
                   WHEN t.type = 'WEB_CHAT' THEN 'visitor-' || (g % 5000) END
       FROM generate_series(1, $2::int) g,
            LATERAL (SELECT now() - make_interval(secs => g * 6) AS at) ts,
            LATERAL (SELECT (ARRAY['LOOKUP','LOOKUP','LOOKUP','LOOKUP','LOOKUP','LOOKUP','LOOKUP','LOOKUP','LOOKUP','LOOKUP',
                                   'CALL_ENDED','CALL_ENDED','CALL_STARTED','SMS_RECEIVED','SMS_RECEIVED','SMS_SENT','WEB_CHAT',
                                   'WHATSAPP_RECEIVED','NOTE','SERVICE_REQUEST_CREATED'])[1 + g % 20] AS type) t`,
        [orgId, n],
      ),
    );
  const started = Date.now();
  // Rows go in without the secondary indexes, which are then built from their own definitions
  // (as the migration declares them): far faster than maintaining them row by row.
  const indexes = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'comms' AND tablename = 'activities' AND indexname <> 'activities_pkey'`,
  );
  for (const index of indexes.rows) await db.query(`DROP INDEX comms.${index.indexname}`);
  await seed(tenant.orgId, count);
  await seed(other.orgId, Math.min(count, 100_000));
  for (const index of indexes.rows) {
    await unbounded(async (tx) => {
      await tx.query("SET LOCAL maintenance_work_mem = '256MB'");
      await tx.query(index.indexdef);
    });
  }
  // Each session's call, as recording a CALL_ENDED activity makes it.
  await unbounded((tx) =>
    tx.query(
      `INSERT INTO comms.calls (org_id, session_id, activity_id, channel, occurred_at, duration_seconds, has_transcription)
     SELECT DISTINCT ON (org_id, session_id) org_id, session_id, id, coalesce(metadata->>'channel', 'phone'), occurred_at,
            (metadata->>'duration_seconds')::float8, metadata ? 'transcription'
     FROM comms.activities WHERE activity_type = 'CALL_ENDED' ORDER BY org_id, session_id, occurred_at DESC`,
    ),
  );
  await unbounded((tx) => tx.query("ANALYZE comms.activities"));
  await unbounded((tx) => tx.query("ANALYZE comms.calls"));
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const sizes = await db.query<{ activities: string; calls: string }>(
    `SELECT (SELECT count(*) FROM comms.activities WHERE org_id = $1) AS activities, (SELECT count(*) FROM comms.calls WHERE org_id = $1) AS calls`,
    [tenant.orgId],
  );
  process.stdout.write(
    `seeded ${sizes.rows[0]?.activities} activities (${sizes.rows[0]?.calls} calls) in one organization in ${seconds} s; ${runs} runs per request\n\n`,
  );

  // The statements the services run, captured as they go through the shared database object.
  let captured: { sql: string; params: readonly unknown[] } | undefined;
  const query = db.query.bind(db) as Queryable["query"];
  (db as { query: Queryable["query"] }).query = ((sql: string, params?: readonly unknown[]) => {
    if (sql.includes("comms.") && sql.includes("LIMIT")) captured = { sql, params: params ?? [] };
    return query(sql, params);
  }) as Queryable["query"];

  const explain = async (sql: string, params: readonly unknown[]) => {
    const result = await query<{
      "QUERY PLAN": [{ "Execution Time": number; "Planning Time": number; Plan: unknown }];
    }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params);
    const plan = result.rows[0]?.["QUERY PLAN"][0];
    return { ms: (plan?.["Execution Time"] ?? Number.NaN) + (plan?.["Planning Time"] ?? 0), plan };
  };

  const paths = [
    "/api/activities",
    "/api/activities?lookups=true",
    "/api/activities?activity_type=NOTE",
    "/api/activities?contact_id=00000000-0000-4000-8000-000000000014",
    "/api/activities?hours_back=24",
    "/api/calls",
    "/api/calls?channel=web",
    "/api/calls?hours_back=24",
    "/api/messages",
    "/api/messages?channel=web",
    "/api/messages?direction=inbound",
    "/api/messages?phone=(555)%20000-0053",
    "/api/messages?page=100",
  ];
  process.stdout.write(
    "| first page of | SQL p50 ms | SQL p99 ms | HTTP p50 ms | HTTP p99 ms | total |\n|---|---|---|---|---|---|\n",
  );
  const plans: Record<string, unknown> = {};
  for (const path of paths) {
    captured = undefined;
    const first = await tenant.owner.get(path);
    if (first.status !== 200 || !captured) throw new Error(`${path}: ${first.status} ${JSON.stringify(first.body)}`);
    const statement: { sql: string; params: readonly unknown[] } = captured;
    const sql: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { ms, plan } = await explain(statement.sql, statement.params);
      sql.push(ms);
      plans[path] = plan;
    }
    const http: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await tenant.owner.get(path);
      http.push(performance.now() - t0);
    }
    const f = (n: number) => n.toFixed(1);
    process.stdout.write(
      `| GET ${path} | ${f(percentile(sql, 50))} | ${f(percentile(sql, 99))} | ${f(percentile(http, 50))} | ${f(percentile(http, 99))} | ${first.body.total} |\n`,
    );
  }

  // The baseline the per-type counts replace: counting the organization's activities to answer
  // the default listing's total.
  const naive: number[] = [];
  for (let i = 0; i < Math.min(runs, 10); i++) {
    naive.push(
      (
        await explain(`SELECT count(*) FROM comms.activities WHERE org_id = $1 AND activity_type <> 'LOOKUP'`, [
          tenant.orgId,
        ])
      ).ms,
    );
  }
  process.stdout.write(
    `\nbaseline: counting the organization's non-lookup activities takes ${percentile(naive, 50).toFixed(1)} ms (p50 of ${naive.length})\n`,
  );
  if (process.env.BENCH_PLANS) process.stdout.write(`\n${JSON.stringify(plans, null, 1)}\n`);
} finally {
  await system.stop();
  await database.drop();
}
