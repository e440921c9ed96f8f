import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { migrate, readMigrations } from "@voiceops/platform";
import { crmService } from "@voiceops/crm";
import { openPglite, pgliteDatabase } from "../../services/platform/src/db/pglite.js";

// The contact-by-id SELECT on in-memory PGlite, in this process: through PGlite's own query()
// (unnamed statements, parsed and planned on every call) and through the platform's Database
// (named statements, prepared once), alternating, with the crm schema, its indexes and 20,000
// contacts in one organization. Reports the median µs per statement of each.
//
//   npm run bench:pglite [-- --runs 5 --queries 2000 --plan-cache-mode force_custom_plan]
//
// --plan-cache-mode sets PostgreSQL's plan_cache_mode (default auto: a generic plan after five
// custom ones when it costs no more); force_custom_plan shows what planning alone costs.

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const runs = arg("runs", 5);
const queries = arg("queries", 2000);
const planCacheModeAt = process.argv.indexOf("--plan-cache-mode");
const planCacheMode = planCacheModeAt >= 0 ? (process.argv[planCacheModeAt + 1] ?? "auto") : "auto";
const out = (line = "") => process.stdout.write(`${line}\n`);

const pglite = await openPglite(undefined);
const db = pgliteDatabase(pglite);
await db.query("SELECT set_config('plan_cache_mode', $1, false)", [planCacheMode]);
await migrate(db, crmService.schema, readMigrations(crmService.migrationsDir));
const orgId = randomUUID();
await db.query(
  `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name)
   SELECT gen_random_uuid(), $1, 'Contact ' || g, '+1555' || lpad(g::text, 7, '0'), 'c' || g || '@bench.example',
          (ARRAY['prospect','lead','customer','inactive'])[1 + g % 4], 'Company ' || (g % 100)
   FROM generate_series(1, 20000) g`,
  [orgId],
);
await db.exec("ANALYZE crm.contacts");
const ids = (
  await db.query<{ id: string }>("SELECT id FROM crm.contacts WHERE org_id = $1 ORDER BY id LIMIT 100", [orgId])
).rows.map((row) => row.id);
// The crm store's statement (CONTACT_COLUMNS).
const sql =
  "SELECT id, org_id, name, phone_number, email, status, company_name, address, notes, tags, created_at, updated_at FROM crm.contacts WHERE org_id = $1 AND id = $2";

const paths: Record<string, (id: string) => Promise<unknown>> = {
  "PGlite query() (unnamed, planned each call)": (id) => pglite.query(sql, [orgId, id]),
  "Database.query (named, prepared once)": (id) => db.query(sql, [orgId, id]),
};

async function timeRun(run: (id: string) => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < queries; i++) await run(ids[i % ids.length] as string);
  return Number(process.hrtime.bigint() - started) / 1000 / queries;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const results = new Map<string, number[]>(Object.keys(paths).map((name) => [name, []]));
for (const run of Object.values(paths)) await timeRun(run); // warm-up (JIT, generic plan)
for (let round = 0; round < runs; round++) {
  for (const [name, run] of Object.entries(paths)) results.get(name)?.push(await timeRun(run));
}

out(
  `Contact by id on in-memory PGlite, ${queries} statements x ${runs} alternating runs, plan_cache_mode ${planCacheMode}, load average ${loadavg()[0]?.toFixed(2)}`,
);
out();
out("| path | µs per statement (median) | runs |");
out("|---|---|---|");
for (const [name, values] of results)
  out(`| ${name} | ${median(values).toFixed(0)} | ${values.map((v) => v.toFixed(0)).join(", ")} |`);
// PostgreSQL plans a named statement for its parameters five times, then settles on a generic
// plan when that costs no more: the statement above is then no longer planned at all.
const plans = await pglite.query<{ generic_plans: number; custom_plans: number }>(
  "SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement = $1",
  [sql],
);
out();
out(`Plans of the prepared statement: ${JSON.stringify(plans.rows[0])}`);
await db.close();
