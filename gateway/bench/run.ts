import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { connect } from "nats";
import { decodeEvent, defaultNatsPrefix, FAST_PATH_PARTS } from "@voiceops/platform";
import { deleteNatsStreams, isolatedDatabase } from "@voiceops/platform/testing";
import { ContactCreatedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { median, parseArgs } from "./cli.js";
import { scriptNodeFlags } from "./node-flags.js";
import { autocannon, PINNED, type LoadOptions, type LoadResult } from "./load-generator.js";
import { WARM_UP_RUNS, WARM_UP_SECONDS, warmUp as warmUpUntilSteady } from "./warm-up.js";
import {
  cpuMs,
  cpuOf,
  portAllocator,
  type Proc,
  QUIET_BUSY,
  ROOT,
  startServer as start,
  stopAllServers,
  stopServer as stop,
  waitFor,
  waitForQuiet,
} from "./processes.js";

// npm run bench [-- --seconds 8 --rounds 3 --connections 50 --contacts 20000 --only read,list,write,relay,startup
//                  --systems distributed,embedded,lite,uncached --ports 20400 --quiet-max 20
//                  --variants distributed:none,lite:-pglite/write --variant-env DB_PIPELINED_CONNECTIONS=0]
// BENCH_LOG_LEVEL (default info, as deployed) sets the servers' log level; BENCH_PROFILE=<dir>
// writes their CPU profiles.
//
// Every goal of the performance work as a ratio against two baselines measured in the same run
// (gateway/bench/baselines/: Express 5 + pg, and Fastify 5 + pg with named prepared statements,
// both doing the same SQL as the service); the baselines and the systems under test run at the same time on the same scratch database; each round drives
// each of them in turn (interleaved; each run starts on a quiet machine, so that no system is
// measured with what the previous one left behind), and the report gives medians. With more than one core the
// servers are pinned to core 0 and the load generator (autocannon, its own process) to core 1.
// Beside throughput, each run counts the CPU time the system's own processes spent per request,
// which a machine shared with other work disturbs much less than req/s.
// Needs DATABASE_URL (a PostgreSQL server where it may create a scratch database) and NATS_URL
// for the request scenarios; start-up and memory are measured on the embedded mode alone.

const opts = parseArgs(process.argv.slice(2));
const SECONDS = Number(opts.seconds ?? 8);
const ROUNDS = Number(opts.rounds ?? 3);
const CONNECTIONS = Number(opts.connections ?? 50);
const CONTACTS = Number(opts.contacts ?? 20_000);
const ONLY = new Set((opts.only ?? "read,list,write,relay,startup").split(","));
/** Which systems the request scenarios drive besides the baseline (all by default). */
const SYSTEMS = new Set((opts.systems ?? "distributed,embedded,lite,uncached").split(","));
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? "info";
/**
 * `--variant-env KEY=VALUE,...`: settings every variant's processes get besides FAST_PATH, to
 * measure a configuration against the default in the same run (the label names them).
 */
const VARIANT_ENV: Record<string, string> = Object.fromEntries(
  (opts["variant-env"] ?? "")
    .split(",")
    .filter((item) => item !== "")
    .map((item) => {
      const at = item.indexOf("=");
      if (at <= 0) throw new Error(`--variant-env: expected KEY=VALUE, got ${item}`);
      return [item.slice(0, at), item.slice(at + 1)];
    }),
);
const VARIANT_ENV_LABEL = Object.entries(VARIANT_ENV)
  .map(([key, value]) => ` ${key}=${value}`)
  .join("");
/**
 * `--variants system:fastpath[/read|/write],...`: more targets, each a system (distributed,
 * embedded, lite, uncached) started with another FAST_PATH, to measure a hand-written part of
 * services/platform/src/fast-path against its stock part in the same run. `fastpath` is `none`,
 * `all`, a part (`router`: that part alone) or `-part` (every part but that one); `/read` or
 * `/write` limits the variant to that scenario.
 */
const VARIANTS = (opts.variants ?? "")
  .split(",")
  .filter((item) => item !== "")
  .map((item) => {
    const [spec = "", scenario] = item.split("/");
    const [system = "", fastPath = "all"] = spec.split(":");
    return { system, fastPath, scenario, label: `${system} FAST_PATH=${fastPath}${VARIANT_ENV_LABEL}` };
  });
/** The FAST_PATH value of a variant's `fastpath`. */
const fastPathValue = (spec: string) =>
  spec.startsWith("-") ? FAST_PATH_PARTS.filter((part) => part !== spec.slice(1)).join(",") : spec;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
const loads: number[] = [];
const noteLoad = () => loads.push(loadavg()[0] ?? 0);
/** How long each request run waited for a quiet machine, and how many started without one. */
const quietWaits: number[] = [];
let notQuiet = 0;
const out = (line = "") => process.stdout.write(`${line}\n`);

/** `--ports <first>`: the servers' ports counted up from there (one's own range on a shared machine). */
const freePort = portAllocator(opts.ports ? Number(opts.ports) : undefined);

const EMBEDDED_NODE_FLAGS = scriptNodeFlags(ROOT, "start");
const SERVICE_NODE_FLAGS = scriptNodeFlags(ROOT, "start:service");
const GATEWAY_NODE_FLAGS = scriptNodeFlags(ROOT, "start:gateway");

/** One autocannon run at this benchmark's duration and connections unless the options say otherwise. */
function drive(url: string, options: Partial<LoadOptions> = {}): Promise<LoadResult> {
  return autocannon(url, { seconds: SECONDS, connections: CONNECTIONS, ...options });
}

const warmUpRuns: number[] = [];

/** Drives a system until its throughput stops rising (warm-up.ts). */
async function warmUp(url: string, options: Partial<LoadOptions> = {}): Promise<void> {
  warmUpRuns.push(await warmUpUntilSteady(() => drive(url, { ...options, seconds: WARM_UP_SECONDS })));
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server processes of this system, whose CPU time is counted per request. */
  procs: Proc[];
}

interface Summary {
  name: string;
  rps: number;
  p99: number;
  /** Throughput over the Express baseline's, median of the rounds. */
  ratio: number;
  /** The lowest and highest of the per-round ratios: how much the machine moved them. */
  ratioRange: [number, number];
  /** The same against the Fastify baseline. */
  fastifyRatio: number;
  fastifyRange: [number, number];
  /** CPU time of the system's own processes per request (the database server's not counted). */
  cpuUs: number;
  /** The same, by process, for a system of several ("gateway 160 + crm 137"). */
  cpuParts: string;
  /** The baseline's CPU per request over this system's: throughput on an equal share of a core. */
  cpuRatio: number;
  failures: number;
}

/**
 * Drives each target in turn for ROUNDS rounds; returns medians and the median of the
 * per-round ratios to the first two targets (the Express and the Fastify baselines).
 */
async function interleaved(
  targets: Target[],
  request: { path: (t: Target) => string; method?: string; body?: () => string },
): Promise<Summary[]> {
  const results = new Map<string, (LoadResult & { cpuUs: number; partUs: number[] })[]>(
    targets.map((t) => [t.name, []]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order, and reverse it every other round, so no target always runs first or
    // right after the same one.
    const rotated = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
    const order = round % 2 === 1 ? rotated.reverse() : rotated;
    for (const target of order) {
      await quiet();
      noteLoad();
      const partsBefore = target.procs.map(cpuOf);
      const result = await drive(`${target.url}${request.path(target)}`, {
        method: request.method,
        body: request.body?.(),
        headers: target.headers,
      });
      const requests = Math.max(1, result.rps * SECONDS);
      const partUs = target.procs.map((p, i) => ((cpuOf(p) - (partsBefore[i] ?? 0)) * 1000) / requests);
      results.get(target.name)?.push({ ...result, cpuUs: partUs.reduce((a, b) => a + b, 0), partUs });
    }
  }
  const base = results.get(targets[0]?.name ?? "") ?? [];
  const fastify = results.get(targets[1]?.name ?? "") ?? [];
  return targets.map((t) => {
    const list = results.get(t.name) ?? [];
    const ratios = list.map((r, i) => r.rps / (base[i]?.rps || Number.NaN));
    const fastifyRatios = list.map((r, i) => r.rps / (fastify[i]?.rps || Number.NaN));
    return {
      name: t.name,
      rps: median(list.map((r) => r.rps)),
      p99: median(list.map((r) => r.p99)),
      ratio: median(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
      fastifyRatio: median(fastifyRatios),
      fastifyRange: [Math.min(...fastifyRatios), Math.max(...fastifyRatios)],
      cpuUs: median(list.map((r) => r.cpuUs)),
      cpuParts:
        t.procs.length > 1
          ? t.procs.map((p, i) => `${p.name} ${fmt(median(list.map((r) => r.partUs[i] ?? Number.NaN)))}`).join(" + ")
          : "",
      cpuRatio: median(list.map((r, i) => (base[i]?.cpuUs ?? Number.NaN) / r.cpuUs)),
      failures: list.reduce((n, r) => n + r.non2xx + r.errors, 0),
    };
  });
}

const ratioText = (ratio: number, range: [number, number]) =>
  `${fmt(ratio, 2)}x${ROUNDS > 1 ? ` (${fmt(range[0], 2)}-${fmt(range[1], 2)})` : ""}`;

function table(rows: Summary[], goal: (row: Summary) => string): void {
  out(
    "| target | req/s (median) | p99 ms (median) | to Express (median of rounds; lowest-highest) | to Fastify | CPU µs per request | CPU ratio to Express | non-2xx + errors | goal |",
  );
  out("|---|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    out(
      `| ${row.name} | ${fmt(row.rps)} | ${fmt(row.p99)} | ${ratioText(row.ratio, row.ratioRange)} | ${ratioText(row.fastifyRatio, row.fastifyRange)} | ${fmt(row.cpuUs)}${row.cpuParts ? ` (${row.cpuParts})` : ""} | ${fmt(row.cpuRatio, 2)}x | ${row.failures} | ${goal(row)} |`,
    );
  }
  out();
}

// --- start-up and memory of the embedded mode (npm start) -----------------------------------

function childrenOf(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return tasks ? tasks.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/** The node process npm start ends up running (npm -> sh -> node). */
function leafNode(pid: number): number {
  let current = pid;
  for (let depth = 0; depth < 5; depth++) {
    const kids = childrenOf(current);
    if (kids.length === 0) break;
    current = kids[0] as number;
  }
  return current;
}

/** `--quiet-max <s>`: on a machine that other work keeps busy, waiting the whole 20 s before each run only lengthens the benchmark. */
const QUIET_MAX_MS = Number(opts["quiet-max"] ?? 20) * 1000;

/**
 * Waits for a quiet machine before a run: what a run leaves behind (a relay's and the consumers'
 * backlog, PostgreSQL's autovacuum and checkpoints) would otherwise be measured as part of the
 * next system's run.
 */
async function quiet(): Promise<void> {
  const { waitedMs, quiet: wasQuiet } = await waitForQuiet(QUIET_MAX_MS);
  if (!wasQuiet) notQuiet++;
  quietWaits.push(waitedMs);
}

function rssMb(pid: number): number {
  const line =
    readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:")) ?? "";
  return Number(line.replace(/\D+/g, "")) / 1024;
}

async function startupRound(dataDir: string): Promise<{ wallMs: number; cpuMs: number; rssMb: number }> {
  const [port, adminPort] = await Promise.all([freePort(), freePort()]);
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}/health/live`;
  for (;;) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (performance.now() - started > 120_000) throw new Error("npm start did not answer /health/live within 120 s");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const wallMs = performance.now() - started;
  const node = leafNode(child.pid ?? 0);
  const cpu = cpuMs(node);
  // Idle: nothing has been asked of it yet; let start-up garbage be collected.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const rss = rssMb(node);
  process.kill(node, "SIGTERM");
  await exited;
  return { wallMs, cpuMs: cpu, rssMb: rss };
}

async function startupBench(): Promise<void> {
  out("## Start-up and memory: embedded `npm start` (PGlite, in-process bus)");
  out();
  const cold: Awaited<ReturnType<typeof startupRound>>[] = [];
  const warm: Awaited<ReturnType<typeof startupRound>>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = mkdtempSync(join(tmpdir(), "voiceops-bench-start-"));
    try {
      noteLoad();
      cold.push(await startupRound(dataDir));
      noteLoad();
      warm.push(await startupRound(dataDir));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  out(
    "| start | /health/live after, wall ms (median) | CPU ms until then (median) | idle RSS MB (median, 5 s after) | goal |",
  );
  out("|---|---|---|---|---|");
  const row = (name: string, list: typeof cold, goalMs: number) =>
    out(
      `| ${name} | ${fmt(median(list.map((r) => r.wallMs)))} | ${fmt(median(list.map((r) => r.cpuMs)))} | ${fmt(median(list.map((r) => r.rssMb)))} | < ${goalMs} ms wall (${fmt(median(list.map((r) => r.wallMs)) / goalMs, 2)}x of it), < 250 MB RSS |`,
    );
  row("cold (new data directory)", cold, 6_000);
  row("warm (restart on the same data)", warm, 3_000);
  out();
}

// --- the request scenarios ------------------------------------------------------------------

async function requestBench(): Promise<void> {
  const base = process.env.DATABASE_URL;
  const natsUrl = process.env.NATS_URL;
  if (!base || !natsUrl) {
    out(
      "DATABASE_URL and NATS_URL are not both set: skipping the request scenarios (they compare with Express + pg).\n",
    );
    return;
  }
  const database = await isolatedDatabase(base);
  // The embedded system on PostgreSQL has a database (and so NATS streams) of its own: on a
  // shared one its relay and in-process consumers took the distributed system's events, and the
  // crm service's relay the embedded system's, each working on core 0 while the other was driven.
  const embeddedDatabase = await isolatedDatabase(base);
  const variantDatabases: { url: string; drop(): Promise<void> }[] = [];
  const procs: Proc[] = [];
  const client = new pg.Client({ connectionString: database.url });
  const embeddedClient = new pg.Client({ connectionString: embeddedDatabase.url });
  try {
    const internalToken = randomBytes(18).toString("base64url");
    const adminToken = randomBytes(18).toString("base64url");
    const ports: number[] = [];
    for (let i = 0; i < 12; i++) ports.push(await freePort());
    const [
      crmPort,
      crmOps,
      gwPort,
      gwAdmin,
      embPort,
      embAdmin,
      litePort,
      liteAdmin,
      basePort,
      uncachedPort,
      uncachedAdmin,
      fastifyPort,
    ] = ports as [number, number, number, number, number, number, number, number, number, number, number, number];
    const common = {
      DATABASE_URL: database.url,
      NATS_URL: natsUrl,
      INTERNAL_TOKEN: internalToken,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL,
      RATE_LIMIT_PER_MINUTE: "1000000000",
      HOST: "127.0.0.1",
    };

    // Distributed: the crm service and the gateway as two processes.
    const crm = start("crm", [...SERVICE_NODE_FLAGS, "dist/crm.js"], {
      ...common,
      GRPC_HOST: "127.0.0.1",
      GRPC_PORT: String(crmPort),
      OPS_PORT: String(crmOps),
    });
    procs.push(crm);
    await waitFor(`http://127.0.0.1:${crmOps}/health/live`, crm);
    const gateway = start("gateway", [...GATEWAY_NODE_FLAGS, "dist/gateway.js"], {
      ...common,
      PORT: String(gwPort),
      ADMIN_PORT: String(gwAdmin),
      CRM_SERVICE_ADDR: `http://127.0.0.1:${crmPort}`,
    });
    procs.push(gateway);
    await waitFor(`http://127.0.0.1:${gwPort}/health/live`, gateway);

    // Embedded (one process, in-process calls) on PostgreSQL (its own database), and on PGlite.
    const embedded = start("embedded", [...EMBEDDED_NODE_FLAGS, "dist/embedded.js"], {
      ...common,
      DATABASE_URL: embeddedDatabase.url,
      PORT: String(embPort),
      ADMIN_PORT: String(embAdmin),
    });
    procs.push(embedded);
    await waitFor(`http://127.0.0.1:${embPort}/health/live`, embedded);
    // PGlite as shipped, and with its read cache off: every read reaches the database.
    const liteDirs: string[] = [];
    const startLite = async (
      name: string,
      port: number,
      adminPort: number,
      readCache: "on" | "off",
      fastPath = "all",
    ) => {
      const dataDir = mkdtempSync(join(tmpdir(), "voiceops-bench-pglite-"));
      liteDirs.push(dataDir);
      const proc = start(name, [...EMBEDDED_NODE_FLAGS, "dist/embedded.js"], {
        DATA_DIR: dataDir,
        EMBEDDED_READ_CACHE: readCache,
        FAST_PATH: fastPath,
        LOG_LEVEL,
        RATE_LIMIT_PER_MINUTE: "1000000000",
        HOST: "127.0.0.1",
        ADMIN_TOKEN: adminToken,
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
      });
      procs.push(proc);
      await waitFor(`http://127.0.0.1:${port}/health/live`, proc);
      return proc;
    };
    const lite = await startLite("embedded-pglite", litePort, liteAdmin, "on");
    const uncached = await startLite("embedded-pglite-uncached", uncachedPort, uncachedAdmin, "off");

    const admin = async (adminPort: number, path: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${adminPort}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; key: string };
    };
    // On each PostgreSQL database: an organization with CONTACTS contacts, its owner key, and
    // the contact in the middle.
    const seeded = async (adminPort: number, db: pg.Client) => {
      const org = await admin(adminPort, "/admin/organizations", { name: "Bench Plumbing" });
      const key = (await admin(adminPort, `/admin/organizations/${org.id}/api-keys`, { role: "owner" })).key;
      await db.connect();
      await db.query(
        `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name)
         SELECT gen_random_uuid(), $1, 'Contact ' || g, '+1555' || lpad(g::text, 7, '0'), 'c' || g || '@bench.example',
                (ARRAY['prospect','lead','customer','inactive'])[1 + g % 4], 'Company ' || (g % 100)
         FROM generate_series(1, $2::int) g`,
        [org.id, CONTACTS],
      );
      await db.query("ANALYZE crm.contacts");
      const id =
        (
          await db.query<{ id: string }>(
            "SELECT id FROM crm.contacts WHERE org_id = $1 ORDER BY id LIMIT 1 OFFSET $2",
            [org.id, Math.floor(CONTACTS / 2)],
          )
        ).rows[0]?.id ?? "";
      return { orgId: org.id, key, id };
    };
    const { orgId, key, id: someId } = await seeded(gwAdmin, client);
    const embeddedData = await seeded(embAdmin, embeddedClient);
    // The baseline's outbox rows go to a table of the same shape that no relay reads (in
    // crm.outbox the crm service's relay would publish them while the baseline is driven).
    await client.query("CREATE SCHEMA bench; CREATE TABLE bench.outbox (LIKE crm.outbox INCLUDING ALL)");
    // On each PGlite system: an organization, its key and one contact.
    const liteContact = async (port: number, adminPort: number) => {
      const liteOrg = await admin(adminPort, "/admin/organizations", { name: "Bench Plumbing" });
      const liteKey = (await admin(adminPort, `/admin/organizations/${liteOrg.id}/api-keys`, { role: "owner" })).key;
      const created = await fetch(`http://127.0.0.1:${port}/api/contacts`, {
        method: "POST",
        headers: { "x-api-key": liteKey, "content-type": "application/json" },
        body: JSON.stringify({ name: "Jane Doe", phone_number: "+15550102000" }),
      });
      return { key: liteKey, id: ((await created.json()) as { id: string }).id };
    };
    const liteData = await liteContact(litePort, liteAdmin);
    const uncachedData = await liteContact(uncachedPort, uncachedAdmin);

    const baseline = start("baseline", ["--import", "tsx", "gateway/bench/baselines/express-pg.ts"], {
      DATABASE_URL: database.url,
      PORT: String(basePort),
      BENCH_ORG_ID: orgId,
      BENCH_OUTBOX: "bench.outbox",
    });
    procs.push(baseline);
    await waitFor(`http://127.0.0.1:${basePort}/api/contacts/${someId}`, baseline);
    const fastify = start("fastify", ["--import", "tsx", "gateway/bench/baselines/fastify-pg.ts"], {
      DATABASE_URL: database.url,
      PORT: String(fastifyPort),
      BENCH_ORG_ID: orgId,
      BENCH_OUTBOX: "bench.outbox",
    });
    procs.push(fastify);
    await waitFor(`http://127.0.0.1:${fastifyPort}/api/contacts/${someId}`, fastify);

    const json = { "content-type": "application/json" };
    const targets = {
      baseline: {
        name: "baseline: Express 5 + pg",
        url: `http://127.0.0.1:${basePort}`,
        headers: json,
        procs: [baseline],
      },
      fastify: {
        name: "baseline: Fastify 5 + pg (named prepared statements)",
        url: `http://127.0.0.1:${fastifyPort}`,
        headers: json,
        procs: [fastify],
      },
      distributed: {
        name: "distributed: gateway -> crm (Connect over HTTP/1.1) -> PostgreSQL",
        url: `http://127.0.0.1:${gwPort}`,
        headers: { ...json, "x-api-key": key },
        procs: [gateway, crm],
      },
      embedded: {
        name: "embedded on PostgreSQL (one process, in-process calls)",
        url: `http://127.0.0.1:${embPort}`,
        headers: { ...json, "x-api-key": embeddedData.key },
        procs: [embedded],
      },
      lite: {
        name: "embedded on PGlite (npm start as shipped)",
        url: `http://127.0.0.1:${litePort}`,
        headers: { ...json, "x-api-key": liteData.key },
        procs: [lite],
      },
      uncached: {
        name: "embedded on PGlite, EMBEDDED_READ_CACHE=off (every read reaches PGlite)",
        url: `http://127.0.0.1:${uncachedPort}`,
        headers: { ...json, "x-api-key": uncachedData.key },
        procs: [uncached],
      },
    };
    const contacts = new Map<Target, string>([
      [targets.lite, liteData.id],
      [targets.uncached, uncachedData.id],
      [targets.embedded, embeddedData.id],
    ]);

    // The variants: the same systems under another FAST_PATH, each on data of its own.
    const variantTargets: { target: Target; scenario: string | undefined }[] = [];
    for (const variant of VARIANTS) {
      const fastPath = fastPathValue(variant.fastPath);
      const [port, adminPort, rpcPort, opsPort] = [
        await freePort(),
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      let target: Target;
      if (variant.system === "distributed" || variant.system === "embedded") {
        const own = await isolatedDatabase(base);
        variantDatabases.push(own);
        const env = { ...common, DATABASE_URL: own.url, FAST_PATH: fastPath, ...VARIANT_ENV };
        const variantProcs: Proc[] = [];
        if (variant.system === "distributed") {
          const service = start(`crm ${fastPath}`, [...SERVICE_NODE_FLAGS, "dist/crm.js"], {
            ...env,
            GRPC_HOST: "127.0.0.1",
            GRPC_PORT: String(rpcPort),
            OPS_PORT: String(opsPort),
          });
          variantProcs.push(service);
          await waitFor(`http://127.0.0.1:${opsPort}/health/live`, service);
          variantProcs.push(
            start(`gateway ${fastPath}`, [...GATEWAY_NODE_FLAGS, "dist/gateway.js"], {
              ...env,
              PORT: String(port),
              ADMIN_PORT: String(adminPort),
              CRM_SERVICE_ADDR: `http://127.0.0.1:${rpcPort}`,
            }),
          );
        } else {
          variantProcs.push(
            start(`embedded ${fastPath}`, [...EMBEDDED_NODE_FLAGS, "dist/embedded.js"], {
              ...env,
              PORT: String(port),
              ADMIN_PORT: String(adminPort),
            }),
          );
        }
        procs.push(...variantProcs);
        await waitFor(`http://127.0.0.1:${port}/health/live`, variantProcs.at(-1) as Proc);
        const dbClient = new pg.Client({ connectionString: own.url });
        try {
          const data = await seeded(adminPort, dbClient);
          target = {
            name: variant.label,
            url: `http://127.0.0.1:${port}`,
            headers: { ...json, "x-api-key": data.key },
            procs: variantProcs,
          };
          contacts.set(target, data.id);
        } finally {
          await dbClient.end();
        }
      } else if (variant.system === "lite" || variant.system === "uncached") {
        const proc = await startLite(
          variant.label,
          port,
          adminPort,
          variant.system === "lite" ? "on" : "off",
          fastPath,
        );
        const data = await liteContact(port, adminPort);
        target = {
          name: variant.label,
          url: `http://127.0.0.1:${port}`,
          headers: { ...json, "x-api-key": data.key },
          procs: [proc],
        };
        contacts.set(target, data.id);
      } else {
        throw new Error(`--variants: unknown system ${variant.system}`);
      }
      variantTargets.push({ target, scenario: variant.scenario });
    }
    const contactOf = (t: Target) => contacts.get(t) ?? someId;

    const pick = (scenario: string, ...systems: Target[]) => [
      targets.baseline,
      targets.fastify,
      ...systems.filter((t) => SYSTEMS.has(Object.entries(targets).find(([, v]) => v === t)?.[0] ?? "")),
      ...variantTargets.filter((v) => v.scenario === undefined || v.scenario === scenario).map((v) => v.target),
    ];

    // Warm every path up (JIT, pools, caches) before measuring, until its throughput settles.
    for (const t of [...Object.values(targets), ...variantTargets.map((v) => v.target)]) {
      await warmUp(`${t.url}/api/contacts/${contactOf(t)}`, { headers: t.headers });
    }

    if (ONLY.has("read")) {
      out(
        `## Goals 1 and 2: GET /api/contacts/{id}, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds`,
      );
      out();
      const rows = await interleaved(
        pick("read", targets.distributed, targets.embedded, targets.lite, targets.uncached),
        {
          path: (t) => `/api/contacts/${contactOf(t)}`,
        },
      );
      const fastifyP99 = rows.find((row) => row.name === targets.fastify.name)?.p99 ?? Number.NaN;
      table(rows, (row) =>
        row.name === targets.distributed.name
          ? `>= 0.8x Fastify, >= 1.0x Express, p99 < ${fmt(fastifyP99 * 1.5)} ms (Fastify's x 1.5)`
          : row.name === targets.lite.name
            ? `>= 1.3x Fastify, >= 1.4x Express, p99 < ${fmt(fastifyP99 * 1.5)} ms`
            : "",
      );
    }

    if (ONLY.has("list")) {
      out(`## A list: GET /api/contacts?page_size=50 (one page by name and its total), ${CONNECTIONS} connections`);
      out();
      // On PostgreSQL only: the PGlite systems hold one contact, so their page would be empty.
      const systems = pick("list", targets.distributed, targets.embedded);
      for (const t of systems) await warmUp(`${t.url}/api/contacts?page_size=50`, { headers: t.headers });
      const rows = await interleaved(systems, { path: () => "/api/contacts?page_size=50" });
      table(rows, (row) => (row.name === targets.distributed.name ? ">= 0.7x Fastify" : ""));
    }

    if (ONLY.has("write")) {
      out(`## Goal 3: POST /api/contacts (insert + outbox row in one transaction), ${CONNECTIONS} connections`);
      out();
      const body = () => JSON.stringify({ name: "Bench Writer", email: "writer@bench.example" });
      // The write path warms up too (JIT, its statements prepared on first use), as reads did.
      for (const t of pick("write", targets.distributed, targets.embedded, targets.lite)) {
        await warmUp(`${t.url}/api/contacts`, { method: "POST", body: body(), headers: t.headers });
      }
      const rows = await interleaved(pick("write", targets.distributed, targets.embedded, targets.lite), {
        path: () => "/api/contacts",
        method: "POST",
        body,
      });
      table(rows, (row) =>
        row.name === targets.distributed.name
          ? ">= 0.7x Fastify"
          : row.name === targets.lite.name
            ? ">= 0.9x Express"
            : "",
      );
    }

    // The relay scenario measures the crm process's relay alone.
    await stop(embedded);
    await stop(lite);
    await stop(uncached);
    for (const { target } of variantTargets) for (const proc of target.procs) await stop(proc);
    for (const dir of liteDirs) rmSync(dir, { recursive: true, force: true });
    await drainOutbox(client);

    if (ONLY.has("relay"))
      await relayBench(client, database.url, natsUrl, targets.distributed, `http://127.0.0.1:${crmOps}/metrics`);
  } finally {
    for (const proc of procs.reverse()) await stop(proc);
    await client.end().catch(() => undefined);
    await embeddedClient.end().catch(() => undefined);
    await database.drop();
    await embeddedDatabase.drop();
    for (const own of variantDatabases) await own.drop();
    // The systems' streams, named after their databases, go with them.
    for (const url of [database.url, embeddedDatabase.url, ...variantDatabases.map((own) => own.url)])
      await deleteNatsStreams(natsUrl, defaultNatsPrefix(url));
  }
}

async function drainOutbox(client: pg.Client): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const n = Number((await client.query<{ n: number }>("SELECT count(*)::int AS n FROM crm.outbox")).rows[0]?.n ?? 0);
    if (n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Cumulative counts of a Prometheus histogram's buckets (le -> count) from a /metrics page. */
async function histogram(metricsUrl: string, name: string, label: string): Promise<Map<number, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const buckets = new Map<number, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}_bucket{`) || !line.includes(label)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1] ?? "";
    buckets.set(le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), Number(line.split(" ").pop()));
  }
  return buckets;
}

/** The bucket bound under which a quantile of the observations between two scrapes falls. */
function bucketQuantile(before: Map<number, number>, after: Map<number, number>, q: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Number.POSITIVE_INFINITY) ?? 0) - (before.get(Number.POSITIVE_INFINITY) ?? 0);
  for (const bound of bounds) {
    if ((after.get(bound) ?? 0) - (before.get(bound) ?? 0) >= q * total) return bound * 1000;
  }
  return Number.NaN;
}

/**
 * Goal 4: write-to-consumer latency at a fixed write rate through the crm process's relay, from
 * the event's creation in the handler (before its transaction) to a NATS subscriber; and the
 * relay's own lag (commit to JetStream acknowledgement) from the crm's publish-lag histogram.
 * When the machine cannot sustain the goal's rate, a second run at half of what it achieved
 * shows the relay apart from queueing in front of the database.
 */
async function relayBench(
  client: pg.Client,
  databaseUrl: string,
  natsUrl: string,
  target: Target,
  metricsUrl: string,
): Promise<void> {
  const goalRate = Number(opts.rate ?? 500);
  const seconds = Math.max(SECONDS, 10);
  out(`## Goal 4: outbox relay, POST /api/contacts at a fixed rate for ${seconds} s, event -> NATS subscriber`);
  out();
  out(
    "| rate asked | writes/s achieved | events received | p50 ms | p90 ms | p99 ms | max ms | relay lag p50 / p99 ms (commit -> ack, histogram bucket) | goal |",
  );
  out("|---|---|---|---|---|---|---|---|---|");
  const nc = await connect({ servers: natsUrl });
  const prefix = defaultNatsPrefix(databaseUrl);
  let latencies: number[] = [];
  const sub = nc.subscribe(`${prefix}.crm.contact.created`, {
    callback: (_error, msg) => {
      const event = decodeEvent(msg.data, ContactCreatedSchema);
      latencies.push(Date.now() - event.occurredAt.getTime());
    },
  });
  try {
    let rate = goalRate;
    for (let pass = 0; pass < 2; pass++) {
      latencies = [];
      await quiet();
      noteLoad();
      const before = await histogram(metricsUrl, "outbox_publish_lag_seconds", 'schema="crm"');
      const load = await drive(`${target.url}/api/contacts`, {
        method: "POST",
        body: JSON.stringify({ name: "Relay Writer" }),
        headers: target.headers,
        seconds,
        connections: 50,
        rate,
      });
      await drainOutbox(client);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const after = await histogram(metricsUrl, "outbox_publish_lag_seconds", 'schema="crm"');
      const p99 = quantile(latencies, 0.99);
      out(
        `| ${rate}/s | ${fmt(load.rps)} | ${latencies.length} | ${fmt(quantile(latencies, 0.5))} | ${fmt(quantile(latencies, 0.9))} | ${fmt(p99)} | ${fmt(Math.max(...latencies))} | ${fmt(bucketQuantile(before, after, 0.5))} / ${fmt(bucketQuantile(before, after, 0.99))} | ${rate === goalRate ? `p99 < 100 ms at 500/s (${fmt(p99 / 100, 2)}x of it)` : "(sustainable rate on this machine)"} |`,
      );
      if (load.rps >= 0.9 * rate) break;
      rate = Math.max(1, Math.floor(load.rps / 2));
    }
    out();
  } finally {
    sub.unsubscribe();
    await nc.close();
  }
}

/** How slow this machine is right now: the same work always, timed. */
function calibrate(): string {
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 1e8; i++) x += i;
  if (x < 0) out("unreachable");
  return (performance.now() - started).toFixed(0);
}

const began = Date.now();
noteLoad();
out(`# voiceops benchmark (${new Date().toISOString()})`);
out();
out(
  `${cpus().length} cores (${cpus()[0]?.model ?? "?"}); servers ${PINNED ? "pinned to core 0, load generator to core 1" : "not pinned (taskset unavailable or one core)"}; log level ${LOG_LEVEL}`,
);
out();
out(
  `CPU speed: ${calibrate()} ms for a fixed loop of 10^8 additions (an unloaded current x86 core takes about 70-100 ms); the ratios below compare systems measured on the same machine at the same time.`,
);
out();
const build = spawnSync(process.execPath, ["gateway/scripts/build.mjs", "--if-stale"], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) throw new Error("build failed");
try {
  if (["read", "list", "write", "relay"].some((scenario) => ONLY.has(scenario))) await requestBench();
  if (ONLY.has("startup")) await startupBench();
} finally {
  await stopAllServers();
}
noteLoad();
out(
  `Machine load (1-minute load average, sampled before each run): median ${fmt(median(loads), 1)}, min ${fmt(Math.min(...loads), 1)}, max ${fmt(Math.max(...loads), 1)} on ${cpus().length} cores; ${fmt((Date.now() - began) / 1000)} s in all.`,
);
if (quietWaits.length > 0) {
  out(
    `Before each request run the benchmark waited for a quiet machine (under ${QUIET_BUSY * 100}% of its cores busy): median ${fmt(median(quietWaits) / 1000, 1)} s, max ${fmt(Math.max(...quietWaits) / 1000, 1)} s; ${notQuiet} of ${quietWaits.length} runs started after ${QUIET_MAX_MS / 1000} s without it.`,
  );
}
if (warmUpRuns.length > 0) {
  out(
    `Each system was warmed up with ${WARM_UP_SECONDS} s runs until its throughput stopped rising (at most ${WARM_UP_RUNS}): median ${fmt(median(warmUpRuns))} runs, max ${fmt(Math.max(...warmUpRuns))}.`,
  );
}
out("Search at scale (goal 5) has its own run: DATABASE_URL=... npm run bench:explain (seeds millions of rows).");
