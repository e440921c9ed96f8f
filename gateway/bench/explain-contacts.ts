import { AdminClient, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

// Plans and timings of the contact queries on a large organization, against real PostgreSQL
// (DATABASE_URL): seeds N contacts in a scratch database, then times the list, search and
// phone lookups through the REST API. Usage: DATABASE_URL=... npm run bench:explain -- [N]

const count = Number(process.argv[2] ?? 1_000_000);
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is required: this measures PostgreSQL");
const database = await isolatedDatabase(base);
const system = await startSystem({ env: testEnv({ DATABASE_URL: database.url, NATS_URL: "", RATE_LIMIT_PER_MINUTE: "100000000" }) });
try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const started = Date.now();
  for (let from = 1; from <= count; from += 50_000) {
    await system.db.query(
      `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'Contact ' || g, '+1555' || lpad(g::text, 7, '0'), 'c' || g || '@example.com',
              (ARRAY['prospect','lead','customer','inactive'])[1 + g % 4], 'Company ' || (g % 1000),
              now() - (g || ' seconds')::interval, now()
       FROM generate_series($2::int, $3::int) g`,
      [tenant.orgId, from, Math.min(count, from + 49_999)],
    );
  }
  await system.db.query("ANALYZE crm.contacts");
  process.stdout.write(`seeded ${count} contacts in ${((Date.now() - started) / 1000).toFixed(1)} s\n\n| request | ms (median of 5) | total |\n|---|---|---|\n`);
  const paths = [
    "/api/contacts",
    "/api/contacts?sort=name_desc",
    "/api/contacts?sort=newest",
    "/api/contacts?prospects=true",
    "/api/contacts?status=customer&page=100",
    "/api/contacts?search=contact%20123456",
    "/api/contacts?search=(555)%20012-3456",
    "/api/contacts/search?q=%2B15550123456",
    "/api/contacts/search?q=Contact%2099999",
    "/api/contacts/search-by-email?email=c777777%40",
  ];
  for (const path of paths) {
    const times: number[] = [];
    let total = "";
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const res = await tenant.owner.get(path);
      times.push(performance.now() - t0);
      total = Array.isArray(res.body) ? `${res.body.length} items` : String(res.body.total);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(`| GET ${path} | ${times[2]?.toFixed(1)} | ${total} |\n`);
  }
} finally {
  await system.stop();
  await database.drop();
}
