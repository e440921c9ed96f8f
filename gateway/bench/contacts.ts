import autocannon from "autocannon";
import { AdminClient, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

// Load test of the contact routes on loopback: starts a system (embedded, or on DATABASE_URL
// and NATS_URL when set), seeds contacts for one organization, then drives reads and writes
// with autocannon for a bounded time. Usage: npm run bench [-- seconds connections contacts]

const [seconds = 10, connections = 20, seed = 2_000] = process.argv.slice(2).map(Number);

const system = await startSystem({ env: testEnv({ RATE_LIMIT_PER_MINUTE: "100000000", DB_POOL_SIZE: "20" }), inMemory: true });
try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const key = tenant.owner.apiKey ?? "";
  const ids: string[] = [];
  for (let i = 0; i < seed; i++) {
    const res = await tenant.owner.post("/api/contacts", { name: `Bench Contact ${i}`, phone_number: `+1555${String(1_000_000 + i)}`, email: `c${i}@bench.example` });
    ids.push(res.body.id);
  }
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const scenarios: { name: string; requests: autocannon.Request[] }[] = [
    { name: "GET /api/contacts (page 1, sorted by name)", requests: [{ method: "GET", path: "/api/contacts" }] },
    { name: "GET /api/contacts/{id}", requests: ids.slice(0, 200).map((id) => ({ method: "GET" as const, path: `/api/contacts/${id}` })) },
    { name: "GET /api/contacts/search?q=<phone>", requests: [{ method: "GET", path: "/api/contacts/search?q=(555)%20100-0123" }] },
    { name: "GET /api/contacts?search=<name>", requests: [{ method: "GET", path: "/api/contacts?search=contact%2019" }] },
    { name: "POST /api/leads", requests: [{ method: "POST", path: "/api/leads", body: JSON.stringify({ name: "Bench Lead", source: "bench" }) }] },
  ];
  process.stdout.write(`system: ${system.db.kind} storage, ${system.bus.kind} bus; ${seed} contacts; ${connections} connections; ${seconds}s per scenario\n\n`);
  process.stdout.write("| scenario | req/s (avg) | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|\n");
  for (const scenario of scenarios) {
    const result = await autocannon({ url: system.url, connections, duration: seconds, headers, requests: scenario.requests });
    process.stdout.write(`| ${scenario.name} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx} |\n`);
  }
} finally {
  await system.stop();
}
