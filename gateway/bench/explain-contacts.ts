import pg from "pg";
import { AdminClient, ApiClient, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

// Contact listings and searches on one large organization among many, against real PostgreSQL:
// seeds a scratch database, then times each request through the REST API (the system runs in
// this process on that database) and reports p50/p99 against the goals.
//
//   DATABASE_URL=... npm run bench:explain [-- --contacts 1000000 --total 5000000 --runs 40 --keep]
//
// --keep leaves the scratch database in place (its name and the organization are printed) for
// EXPLAIN work by hand; drop it afterwards. --reuse <database> --org <id> measures a kept one
// again without seeding (after a change of queries or indexes).
//
// --contacts: the measured organization's contacts; --total: contacts in the database (the rest
// in organizations of 10,000). Seeding is a few INSERT ... SELECT generate_series statements
// with the secondary indexes dropped and rebuilt afterwards (as a bulk load is done); each one
// fires the statement-level counter trigger once.

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
function arg(name: string, fallback: number): number {
  const value = option(name);
  return value === undefined ? fallback : Number(value);
}
const count = arg("contacts", 1_000_000);
const total = Math.max(count, arg("total", 5_000_000));
const runs = arg("runs", 40);
const keep = process.argv.includes("--keep");
const reuse = option("reuse");
const reusedOrg = option("org");
if (reuse && !reusedOrg) throw new Error("--reuse needs --org <the measured organization's id>");
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is required: this measures PostgreSQL");
const out = (line = "") => process.stdout.write(`${line}\n`);

const database = reuse ? keptDatabase(base, reuse) : await isolatedDatabase(base);
const system = await startSystem({
  env: testEnv({ DATABASE_URL: database.url, NATS_URL: "", RATE_LIMIT_PER_MINUTE: "100000000" }),
});
const seeder = new pg.Client({ connectionString: database.url, statement_timeout: 0 });
try {
  await seeder.connect();
  const admin = new AdminClient(system.adminUrl, system.adminToken);
  const tenant = reusedOrg
    ? { owner: new ApiClient(system.url, (await admin.createKey(reusedOrg, { role: "owner" })).key), orgId: reusedOrg }
    : await newTenant(system.url, admin);
  if (!reuse) await seed(tenant.orgId);
  if (keep || reuse) out(`measured organization: ${tenant.orgId}`);
  out();
  out(`| request | p50 ms | p99 ms (of ${runs}) | total / items | goal |`);
  out("|---|---|---|---|---|");
  const cases: [string, string][] = [
    ["/api/contacts", "list: p99 < 20 ms"],
    ["/api/contacts?sort=name_desc", "list: p99 < 20 ms"],
    ["/api/contacts?sort=newest", "list: p99 < 20 ms"],
    ["/api/contacts?prospects=true", "list: p99 < 20 ms"],
    ["/api/contacts?status=customer&page=100", "list: p99 < 20 ms"],
    ["/api/contacts?search=contact%20123456", "search=: p99 < 50 ms"],
    ["/api/contacts?search=company%20777&status=lead", "search=: p99 < 50 ms"],
    ["/api/contacts?search=(555)%20012-3456", "phone search: < 15 ms"],
    ["/api/contacts/search?q=%2B15550123456", "phone search: < 15 ms"],
    ["/api/contacts/search?q=(555)%20012-3456", "phone search: < 15 ms"],
    ["/api/contacts/search?q=Contact%2099999", "search: p99 < 50 ms"],
    ["/api/contacts/search-by-email?email=c777777%40", "search: p99 < 50 ms"],
  ];
  for (const [path, goal] of cases) {
    const times: number[] = [];
    let shown = "";
    for (let i = 0; i < runs + 2; i++) {
      const t0 = performance.now();
      const res = await tenant.owner.get(path);
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      if (i >= 2) times.push(ms);
      shown = Array.isArray(res.body) ? `${res.body.length} items` : `${res.body.total} total`;
    }
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]?.toFixed(1);
    out(`| GET ${path} | ${p(0.5)} | ${p(0.99)} | ${shown} | ${goal} |`);
  }
} finally {
  await seeder.end().catch(() => undefined);
  await system.stop();
  if (keep || reuse) out(`kept the scratch database: ${new URL(database.url).pathname.slice(1)}`);
  else await database.drop();
}

/** A database kept by an earlier --keep run, reached with the server of DATABASE_URL. */
function keptDatabase(baseUrl: string, name: string): { url: string; drop(): Promise<void> } {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => undefined };
}

async function seed(orgId: string): Promise<void> {
  const started = Date.now();
  await seeder.query("SET maintenance_work_mem = '256MB'");
  const indexes = await seeder.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = 'crm' AND tablename = 'contacts' AND indexname <> 'contacts_pkey'`,
  );
  for (const index of indexes.rows) await seeder.query(`DROP INDEX crm.${index.name}`);
  const chunk = 500_000;
  // The measured organization: names "Contact <n>", phones +1555<n>, one status in four a prospect.
  for (let from = 1; from <= count; from += chunk) {
    await seeder.query(
      `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'Contact ' || g, '+1555' || lpad(g::text, 7, '0'), 'c' || g || '@example.com',
              (ARRAY['prospect','lead','customer','inactive'])[1 + g % 4], 'Company ' || (g % 1000),
              now() - (g || ' seconds')::interval, now()
       FROM generate_series($2::int, $3::int) g`,
      [orgId, from, Math.min(count, from + chunk - 1)],
    );
  }
  // Everyone else: organizations of 10,000 contacts with the same kind of names and numbers.
  for (let from = 0; from < total - count; from += chunk) {
    await seeder.query(
      `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name, created_at, updated_at)
       SELECT gen_random_uuid(), ('00000000-0000-7000-8000-' || lpad(to_hex(g / 10000), 12, '0'))::uuid,
              'Contact ' || g, '+1555' || lpad((g % 10000000)::text, 7, '0'), 'c' || g || '@example.com',
              (ARRAY['prospect','lead','customer','inactive'])[1 + g % 4], 'Company ' || (g % 1000),
              now() - (g || ' seconds')::interval, now()
       FROM generate_series($1::int, $2::int) g`,
      [from, Math.min(total - count, from + chunk) - 1],
    );
  }
  const seededAt = Date.now();
  for (const index of indexes.rows) await seeder.query(index.definition);
  await seeder.query("ANALYZE crm.contacts");
  await seeder.query("SELECT crm.fold_contact_count_changes()");
  const counted = await seeder.query<{ n: number }>(
    "SELECT coalesce(sum(n), 0)::int AS n FROM crm.contact_counts WHERE org_id = $1",
    [orgId],
  );
  out(
    `seeded ${total} contacts (${count} in the measured organization; its counter says ${counted.rows[0]?.n}) in ${((seededAt - started) / 1000).toFixed(0)} s, indexes rebuilt in ${((Date.now() - seededAt) / 1000).toFixed(0)} s`,
  );
}
