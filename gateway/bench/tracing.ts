import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { AdminClient, newTenant } from "@voiceops/platform/testing";
import { median } from "./cli.js";
import { autocannon, type LoadResult } from "./load-generator.js";
import { scriptNodeFlags } from "./node-flags.js";
import { cpuOf, portAllocator, ROOT, startServer, stopAllServers, stopServer, waitFor } from "./processes.js";

// npm run bench:tracing [-- --seconds 8 --rounds 2 --connections 20 --ports 27100 --before <root>]
//
// What tracing costs the read path of the embedded system (`npm start`): GET /api/contacts/{id}
// with tracing off, and on with every trace sampled and exported over OTLP/HTTP (protobuf) to a
// receiver in this process that drops what it gets. `--before <root>`: also a checkout built
// without tracing (its dist/), the "before" the figures are compared with. Rounds interleave
// the variants; the report gives medians of requests per second, p99 and CPU per request.

const opts = Object.fromEntries(
  process.argv
    .slice(2)
    .flatMap((arg, i, all) => (arg.startsWith("--") ? [[arg.slice(2), all[i + 1] ?? ""]] : []))
    .filter(([, value]) => value !== undefined),
) as Record<string, string>;
const SECONDS = Number(opts.seconds ?? 8);
const ROUNDS = Number(opts.rounds ?? 2);
const CONNECTIONS = Number(opts.connections ?? 20);
const CONTACTS = 200;
const nextPort = portAllocator(opts.ports ? Number(opts.ports) : undefined);

/** An OTLP/HTTP receiver that answers and forgets. */
async function receiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Variant {
  label: string;
  entry: string;
  env: Record<string, string>;
}

async function runOnce(variant: Variant): Promise<LoadResult & { cpuPerRequestMs: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "voiceops-bench-tracing-"));
  const [port, adminPort] = [await nextPort(), await nextPort()];
  const adminToken = "bench-admin-token-0123456789";
  const proc = startServer(variant.label, [...scriptNodeFlags(ROOT, "start"), variant.entry], {
    ...variant.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: "warn",
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/health/live`, proc);
    const tenant = await newTenant(url, new AdminClient(`http://127.0.0.1:${adminPort}`, adminToken));
    const ids: string[] = [];
    for (let i = 0; i < CONTACTS; i++) {
      const res = await tenant.owner.post("/api/contacts", {
        name: `Bench ${i}`,
        phone_number: `+1555018${String(i).padStart(4, "0")}`,
      });
      ids.push(res.body.id);
    }
    const key = tenant.owner.apiKey ?? "";
    await autocannon(`${url}/api/contacts/${ids[0]}`, {
      seconds: 2,
      connections: CONNECTIONS,
      headers: { "x-api-key": key },
    });
    const cpuBefore = cpuOf(proc);
    const result = await autocannon(`${url}/api/contacts/${ids[CONTACTS >> 1]}`, {
      seconds: SECONDS,
      connections: CONNECTIONS,
      headers: { "x-api-key": key },
    });
    const requests = result.rps * SECONDS;
    return { ...result, cpuPerRequestMs: (cpuOf(proc) - cpuBefore) / Math.max(1, requests) };
  } finally {
    await stopServer(proc);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const otlp = await receiver();
const variants: Variant[] = [
  { label: "tracing off", entry: "dist/embedded.js", env: {} },
  {
    label: "tracing on, 100% sampled",
    entry: "dist/embedded.js",
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_SAMPLER: "always_on" },
  },
];
if (opts.before) {
  const root = isAbsolute(opts.before) ? opts.before : join(process.cwd(), opts.before);
  variants.unshift({ label: "before tracing", entry: join(root, "dist", "embedded.js"), env: {} });
}
const results = new Map<string, (LoadResult & { cpuPerRequestMs: number })[]>(
  variants.map((variant) => [variant.label, []]),
);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) results.get(variant.label)?.push(await runOnce(variant));
  }
} finally {
  await stopAllServers();
  await otlp.close();
}
process.stdout.write(
  `GET /api/contacts/{id}, embedded, ${CONNECTIONS} connections, ${SECONDS} s, median of ${ROUNDS} rounds\n\n`,
);
process.stdout.write("| variant | req/s | p99 ms | CPU ms per request |\n|---|---:|---:|---:|\n");
for (const variant of variants) {
  const runs = results.get(variant.label) ?? [];
  process.stdout.write(
    `| ${variant.label} | ${median(runs.map((r) => r.rps)).toFixed(0)} | ${median(runs.map((r) => r.p99)).toFixed(1)} | ${median(runs.map((r) => r.cpuPerRequestMs)).toFixed(3)} |\n`,
  );
}
process.stdout.write(`\nOTLP bytes received while tracing: ${otlp.received()}\n`);
