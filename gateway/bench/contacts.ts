import { AdminClient, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";
import { autocannon } from "./load-generator.js";

// Load test of the contact routes on loopback: starts the system in this process (embedded, or
// on DATABASE_URL and NATS_URL when set), seeds contacts for one organization, then drives each
// route with autocannon in a separate process (so the load generator does not share the
// server's event loop) for a bounded time. Usage: npm run bench [-- seconds connections contacts]

const [seconds = 10, connections = 20, seed = 2_000] = process.argv.slice(2).map(Number);

const system = await startSystem({
  env: testEnv({ RATE_LIMIT_PER_MINUTE: "100000000", DB_POOL_SIZE: "20" }),
  inMemory: true,
});
try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const key = tenant.owner.apiKey ?? "";
  let someId = "";
  for (let i = 0; i < seed; i++) {
    const res = await tenant.owner.post("/api/contacts", {
      name: `Bench Contact ${i}`,
      phone_number: `+1555${String(1_000_000 + i)}`,
      email: `c${i}@bench.example`,
    });
    if (i === Math.floor(seed / 2)) someId = res.body.id;
  }
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const scenarios: [string, string, string?, string?][] = [
    ["GET /api/contacts (page 1, by name)", "/api/contacts"],
    ["GET /api/contacts/{id}", `/api/contacts/${someId}`],
    ["GET /api/contacts/search?q=<phone>", "/api/contacts/search?q=(555)%20100-0123"],
    ["GET /api/contacts?search=<name>", "/api/contacts?search=contact%2019"],
    ["POST /api/leads", "/api/leads", "POST", JSON.stringify({ name: "Bench Lead", source: "bench" })],
  ];
  process.stdout.write(
    `system: ${system.db.kind} storage, ${system.bus.kind} bus; ${seed} contacts; ${connections} connections; ${seconds}s per scenario\n\n`,
  );
  process.stdout.write("| scenario | req/s (avg) | p50 ms | p99 ms | non-2xx | errors |\n|---|---|---|---|---|---|\n");
  for (const [name, path, method, body] of scenarios) {
    const result = await autocannon(`${system.url}${path}`, { headers, method, body, seconds, connections });
    process.stdout.write(
      `| ${name} | ${Math.round(result.rps)} | ${result.p50} | ${result.p99} | ${result.non2xx} | ${result.errors} |\n`,
    );
  }
} finally {
  await system.stop();
}
