import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AdminClient, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startWebhooksProcess } from "../../services/webhooks/test/webhooks-process.js";
import { startSystem } from "../src/system.js";

// Webhook latency: contacts are created through the REST API at a steady rate and a receiver on
// 127.0.0.1 notes when each contact.created arrives. Reported: the REST write's latency (the
// plain write path) and the time from the write's answer (its commit) to the delivery, p50/p99;
// then the same with a second endpoint that never answers (each attempt times out after 15 s),
// to show that it delays the healthy one by nothing. The webhooks service runs as a process of
// its own (as deployed), the rest of the system in this one.
// Usage: DATABASE_URL=... NATS_URL=... npm run bench:webhooks -- [events per second] [seconds]

const rate = Number(process.argv[2] ?? 200);
const seconds = Number(process.argv[3] ?? 20);
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is required: this measures PostgreSQL");
const database = await isolatedDatabase(base);
if (!process.env.NATS_URL) throw new Error("NATS_URL is required: the webhooks service runs as a process of its own");
const env = testEnv({
  DATABASE_URL: database.url,
  RATE_LIMIT_PER_MINUTE: "100000000",
  MAX_CONNECTIONS_PER_CLIENT: "0",
  DB_POOL_SIZE: "10",
  WEBHOOK_RETRY_SCHEDULE: "",
});
const system = await startSystem({ env });

const arrived = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    if (req.url === "/slow") return; // never answered: the sender times out
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { id: string } };
    arrived.set(body.data.id, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const port = (receiver.address() as AddressInfo).port;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** An organization with the healthy endpoint, and the one that never answers if asked. */
async function organization(withSlowEndpoint: boolean) {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const hook = await tenant.owner.post("/api/webhooks", {
    url: `http://127.0.0.1:${port}/ok`,
    event_types: ["contact.created"],
  });
  if (hook.status !== 201) throw new Error(`endpoint: ${hook.status}`);
  if (withSlowEndpoint)
    await tenant.owner.post("/api/webhooks", {
      url: `http://127.0.0.1:${port}/slow`,
      event_types: ["contact.created"],
    });
  return tenant;
}

async function run(label: string, tenant: Awaited<ReturnType<typeof organization>>): Promise<void> {
  const committed = new Map<string, number>();
  const writes: number[] = [];
  const total = rate * seconds;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      (async () => {
        const sent = performance.now();
        const response = await tenant.owner.post("/api/contacts", { name: `Bench ${i}` });
        const answered = performance.now();
        writes.push(answered - sent);
        if (response.status === 201) committed.set((response.body as { id: string }).id, answered);
      })(),
    );
  }
  await Promise.all(pending);
  const deadline = performance.now() + 60_000;
  while ([...committed.keys()].some((id) => !arrived.has(id)) && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const latencies = [...committed]
    .map(([id, at]) => (arrived.get(id) ?? Number.POSITIVE_INFINITY) - at)
    .sort((a, b) => a - b);
  const missing = latencies.filter((value) => !Number.isFinite(value)).length;
  writes.sort((a, b) => a - b);
  // Where the time goes: event to its recording (outbox, NATS, consumer), recording to the first
  // attempt (the worker), for the healthy endpoint's deliveries.
  const stages = await system.db.query<{ consumed_p99: number; worker_p99: number }>(
    `SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - e.created_at) * 1000) AS consumed_p99,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM a.first_at - d.created_at) * 1000) AS worker_p99
     FROM webhooks.deliveries d JOIN webhooks.events e ON e.id = d.event_id
     JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id AND ep.url LIKE '%/ok'
     JOIN LATERAL (SELECT min(at) AS first_at FROM webhooks.attempts WHERE delivery_id = d.id) a ON true
     WHERE d.org_id = $1`,
    [tenant.orgId],
  );
  console.log(
    JSON.stringify({
      scenario: label,
      events: committed.size,
      rate,
      rest_write_ms: { p50: Math.round(percentile(writes, 50)), p99: Math.round(percentile(writes, 99)) },
      commit_to_delivery_ms: { p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)) },
      missing,
      event_to_recorded_p99_ms: Math.round(Number(stages.rows[0]?.consumed_p99 ?? 0)),
      recorded_to_first_attempt_p99_ms: Math.round(Number(stages.rows[0]?.worker_p99 ?? 0)),
    }),
  );
}

// The endpoints are made through the system's own webhooks service; then a process takes its place.
const healthy = await organization(false);
const besideSlow = await organization(true);
await system.services.find((service) => service.name === "webhooks")?.stop();
const webhooks = await startWebhooksProcess(env);
try {
  await run("healthy endpoint", healthy);
  await run("healthy endpoint beside one that times out", besideSlow);
} finally {
  receiver.closeAllConnections();
  receiver.close();
  await webhooks.stop();
  await system.stop();
  await database.drop();
}
