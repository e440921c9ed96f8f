import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import pg from "pg";
import { isolatedDatabase } from "@voiceops/platform/testing";
import { median, parseArgs } from "./cli.js";
import { autocannon, PINNED, type LoadResult } from "./load-generator.js";
import { scriptNodeFlags } from "./node-flags.js";
import { WARM_UP_SECONDS, warmUp } from "./warm-up.js";
import {
  cpuOf,
  portAllocator,
  type Proc,
  ROOT,
  startServer,
  stopAllServers,
  waitFor,
  waitForQuiet,
} from "./processes.js";

// npm run bench:agents [-- --seconds 8 --rounds 3 --connections 50 --callers 50 --contacts 1000000 --ports 20600
//                         --paced-rate 400 --only read,read-paced,write,idempotency,lookup,lookup-burst]
// (FAST_PATH is handed to the server, as to npm run bench's variants.)
//
// The agent figures of CONTRACT.md "Beyond the reference", each against its baseline in the
// same run, interleaved round by round, on the embedded system over PostgreSQL (one process, so
// its CPU time per request is the whole cost of a call):
// - an MCP read tool (search_contacts) against the REST call it wraps (GET /api/contacts/search),
//   and a write tool (create_lead) against POST /api/leads: CPU per call, goal <= 1.3x; the read
//   pair also at --paced-rate requests a second on both sides (read-paced);
// - lookup_caller for --callers callers on the line at once, each looking up once a second, the
//   callers' seconds staggered evenly, on --contacts contacts: p99, goal < 25 ms; and, for
//   comparison, the same callers all at the same instant each second (autocannon's fixed rate);
// - POST /api/contacts with an Idempotency-Key (a new one each request) against one without:
//   CPU per request, goal <= 1.25x.
// Needs DATABASE_URL (a PostgreSQL server where it may create a scratch database) and NATS_URL.

const opts = parseArgs(process.argv.slice(2));
const SECONDS = Number(opts.seconds ?? 8);
const ROUNDS = Number(opts.rounds ?? 3);
const CONNECTIONS = Number(opts.connections ?? 50);
const CONTACTS = Number(opts.contacts ?? 1_000_000);
const CALLERS = Number(opts.callers ?? 50);
/** The request rate of the paced pairs (below what either side serves at full speed). */
const PACED_RATE = Number(opts["paced-rate"] ?? 400);
const ONLY = new Set((opts.only ?? "read,read-paced,write,idempotency,lookup,lookup-burst").split(","));
const freePort = portAllocator(opts.ports ? Number(opts.ports) : undefined);
const out = (line = "") => process.stdout.write(`${line}\n`);

interface Scenario {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The body; autocannon replaces `[<id>]` with a new id in each request. */
  body?: string;
  /** Connections and requests per second in all (fixed rate); as many as it can over CONNECTIONS when absent. */
  connections?: number;
  rate?: number;
  /** With `rate`: the connections' requests spread over each second (see LoadOptions.staggered). */
  staggered?: boolean;
}

interface Run extends LoadResult {
  cpuUsPerRequest: number;
}

const mcpCall = (tool: string, args: Record<string, unknown>): string =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args } });

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base || !process.env.NATS_URL) throw new Error("set DATABASE_URL and NATS_URL");
  const database = await isolatedDatabase(base);
  const db = new pg.Client({ connectionString: database.url });
  try {
    const adminToken = randomBytes(18).toString("base64url");
    const [port, adminPort] = [await freePort(), await freePort()];
    const system = startServer("embedded", [...scriptNodeFlags(ROOT, "start"), "dist/embedded.js"], {
      DATABASE_URL: database.url,
      NATS_URL: process.env.NATS_URL,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
      // FAST_PATH=rpc,local,pglite,express (all but mcp) measures the SDK's own MCP transport.
      FAST_PATH: process.env.FAST_PATH,
      // DB_PIPELINED_CONNECTIONS=0 measures the lookups on the pool, pg's pipeline mode off.
      DB_PIPELINED_CONNECTIONS: process.env.DB_PIPELINED_CONNECTIONS,
      RATE_LIMIT_PER_MINUTE: "1000000000",
      HOST: "127.0.0.1",
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
    });
    await waitFor(`http://127.0.0.1:${port}/health/live`, system);
    const url = `http://127.0.0.1:${port}`;
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${adminPort}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; key: string };
    };
    const org = await admin("/admin/organizations", { name: "Bench Plumbing" });
    const key = (await admin(`/admin/organizations/${org.id}/api-keys`, { role: "owner" })).key;
    out(`seeding ${CONTACTS} contacts...`);
    await db.connect();
    await db.query(
      `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name)
       SELECT gen_random_uuid(), $1, 'Contact ' || g, '+1555' || lpad(g::text, 7, '0'), 'c' || g || '@bench.example',
              (ARRAY['prospect','lead','customer','inactive'])[1 + g % 4], 'Company ' || (g % 100)
       FROM generate_series(1, $2::int) g`,
      [org.id, CONTACTS],
    );
    // Vacuumed as well as analyzed: autovacuum's first pass over a million new rows would otherwise
    // run during the first rounds, on the cores the server and the load generator use.
    await db.query("VACUUM ANALYZE crm.contacts");
    const caller = `+1555${String(Math.floor(CONTACTS / 2)).padStart(7, "0")}`;
    const auth = { "x-api-key": key, "content-type": "application/json" };

    /** lookup_caller from CALLERS callers, one lookup a second each. */
    const lookupCalls = {
      method: "POST",
      path: "/mcp",
      headers: MCP_HEADERS,
      body: mcpCall("lookup_caller", { phone_number: caller }),
      connections: CALLERS,
      rate: CALLERS,
    };
    const searchTool: Scenario = {
      name: "mcp search_contacts",
      method: "POST",
      path: "/mcp",
      headers: MCP_HEADERS,
      body: mcpCall("search_contacts", { query: caller }),
    };
    const searchRest: Scenario = {
      name: "GET /api/contacts/search",
      method: "GET",
      path: `/api/contacts/search?q=${encodeURIComponent(caller)}`,
    };
    // Each pair: the system under test first, its baseline second.
    const allPairs: { id: string; goal: string; limit: number; measure: "cpu" | "p99"; a: Scenario; b?: Scenario }[] = [
      {
        id: "read",
        goal: "read tool search_contacts / GET /api/contacts/search (CPU per call)",
        limit: 1.3,
        measure: "cpu",
        a: searchTool,
        b: searchRest,
      },
      {
        // At the same request rate on both sides: at full speed the REST side serves more
        // requests a second, and a busier process pays less per request for its wake-ups.
        id: "read-paced",
        goal: `read tool search_contacts / GET /api/contacts/search, both at ${PACED_RATE} requests a second (CPU per call)`,
        limit: 1.3,
        measure: "cpu",
        a: { ...searchTool, name: `mcp search_contacts at ${PACED_RATE}/s`, rate: PACED_RATE },
        b: { ...searchRest, name: `GET /api/contacts/search at ${PACED_RATE}/s`, rate: PACED_RATE },
      },
      {
        id: "write",
        goal: "write tool create_lead / POST /api/leads (CPU per call)",
        limit: 1.3,
        measure: "cpu",
        a: {
          name: "mcp create_lead",
          method: "POST",
          path: "/mcp",
          headers: MCP_HEADERS,
          body: mcpCall("create_lead", { name: "Bench [<id>]", notes: "Bench" }),
        },
        b: {
          name: "POST /api/leads",
          method: "POST",
          path: "/api/leads",
          body: JSON.stringify({ name: "Bench [<id>]", notes: "Bench" }),
        },
      },
      {
        id: "idempotency",
        goal: "POST /api/contacts with Idempotency-Key / without (CPU per request)",
        limit: 1.25,
        measure: "cpu",
        a: {
          name: "POST /api/contacts + Idempotency-Key",
          method: "POST",
          path: "/api/contacts",
          headers: { "idempotency-key": "bench-[<id>]" },
          body: JSON.stringify({ name: "Bench [<id>]" }),
        },
        b: {
          name: "POST /api/contacts",
          method: "POST",
          path: "/api/contacts",
          body: JSON.stringify({ name: "Bench [<id>]" }),
        },
      },
      {
        id: "lookup",
        goal: `lookup_caller p99 for ${CALLERS} callers on the line at once, one lookup a second each (their seconds staggered), on ${CONTACTS} contacts (ms)`,
        limit: 25,
        measure: "p99",
        a: { ...lookupCalls, name: "mcp lookup_caller", staggered: true },
      },
      {
        id: "lookup-burst",
        goal: `lookup_caller p99 for ${CALLERS} callers all looking up at the same instant, once a second, on ${CONTACTS} contacts (ms)`,
        limit: 25,
        measure: "p99",
        a: { ...lookupCalls, name: "mcp lookup_caller, in bursts" },
      },
    ];
    const pairs = allPairs.filter((pair) => ONLY.has(pair.id));

    // Every scenario answers as it should before it is timed (an isError result is a 200).
    for (const scenario of pairs.flatMap((p) => (p.b ? [p.a, p.b] : [p.a]))) {
      const res = await fetch(`${url}${scenario.path}`, {
        method: scenario.method,
        headers: {
          ...auth,
          ...scenario.headers,
          ...(scenario.headers?.["idempotency-key"]
            ? { "idempotency-key": `check-${randomBytes(6).toString("hex")}` }
            : {}),
        },
        body: scenario.body?.replaceAll("[<id>]", "check"),
      });
      const text = await res.text();
      if (!res.ok || text.includes('"isError":true'))
        throw new Error(`${scenario.name}: ${res.status} ${text.slice(0, 500)}`);
    }

    // Each run starts on a quiet machine, and its CPU is counted until the machine is quiet again:
    // a write's events are relayed and consumed after its answer, and that work is the write's
    // (not the next run's, nor is it left out).
    const QUIET_MAX_MS = 30_000;
    const drive = async (scenario: Scenario, proc: Proc, seconds: number): Promise<Run> => {
      await waitForQuiet(QUIET_MAX_MS);
      const before = cpuOf(proc);
      const result = await autocannon(`${url}${scenario.path}`, {
        method: scenario.method,
        headers: { ...auth, ...scenario.headers },
        body: scenario.body,
        seconds,
        connections: scenario.connections ?? CONNECTIONS,
        rate: scenario.rate,
        staggered: scenario.staggered,
        idReplacement: scenario.body?.includes("[<id>]") || JSON.stringify(scenario.headers ?? {}).includes("[<id>]"),
      });
      const requests = Math.max(1, result.sent ?? result.rps * seconds);
      await waitForQuiet(QUIET_MAX_MS);
      return { ...result, cpuUsPerRequest: ((cpuOf(proc) - before) * 1000) / requests };
    };

    out(`# agent benchmark (${new Date().toISOString()})`);
    out(
      `${cpus().length} cores; server ${PINNED ? "pinned to core 0, autocannon to core 1" : "not pinned"}; ${SECONDS} s runs, ${ROUNDS} rounds, ${CONNECTIONS} connections`,
    );
    const warmUpRuns: number[] = [];
    for (const pair of pairs) {
      // Each scenario at full speed until its throughput stops rising: the tool's path has more
      // code for V8 to optimize than the REST call's, and a short warm-up left it in the first round.
      for (const scenario of pair.b ? [pair.a, pair.b] : [pair.a])
        warmUpRuns.push(
          await warmUp(() => drive({ ...scenario, rate: undefined, staggered: undefined }, system, WARM_UP_SECONDS)),
        );
      const runs: { a: Run; b?: Run; load: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const load = loadavg()[0] ?? 0;
        const order = round % 2 === 0 ? ["a", "b"] : ["b", "a"];
        const got: Partial<Record<"a" | "b", Run>> = {};
        for (const which of order as ("a" | "b")[]) {
          const scenario = pair[which];
          if (scenario) got[which] = await drive(scenario, system, SECONDS);
        }
        runs.push({ a: got.a as Run, b: got.b, load });
      }
      out();
      out(`## ${pair.goal}: goal ${pair.measure === "cpu" ? `<= ${pair.limit}x` : `< ${pair.limit} ms`}`);
      out("| round | load | a req/s | a p99 ms | a CPU µs/req | b req/s | b p99 ms | b CPU µs/req | a/b CPU |");
      out("|---|---|---|---|---|---|---|---|---|");
      runs.forEach(({ a, b, load }, i) => {
        const ratio = b ? (a.cpuUsPerRequest / b.cpuUsPerRequest).toFixed(2) : "";
        out(
          `| ${i + 1} | ${load.toFixed(1)} | ${a.rps.toFixed(0)} | ${a.p99} | ${a.cpuUsPerRequest.toFixed(0)} | ${b?.rps.toFixed(0) ?? ""} | ${b?.p99 ?? ""} | ${b?.cpuUsPerRequest.toFixed(0) ?? ""} | ${ratio} |`,
        );
        if (a.non2xx + a.errors + (b?.non2xx ?? 0) + (b?.errors ?? 0) > 0)
          out(`  (round ${i + 1}: non-2xx or errors: a ${a.non2xx}/${a.errors}, b ${b?.non2xx}/${b?.errors})`);
      });
      const figure =
        pair.measure === "cpu"
          ? median(runs.map((r) => r.a.cpuUsPerRequest / (r.b?.cpuUsPerRequest ?? 1)))
          : median(runs.map((r) => r.a.p99));
      out(
        `median: ${figure.toFixed(2)}${pair.measure === "cpu" ? "x" : " ms"} (a = ${pair.a.name}${pair.b ? `, b = ${pair.b.name}` : ""})`,
      );
    }
    out();
    out(
      `Each scenario was warmed up with ${WARM_UP_SECONDS} s runs until its throughput stopped rising: median ${median(warmUpRuns)} runs, max ${Math.max(...warmUpRuns)}.`,
    );
  } finally {
    await stopAllServers();
    await db.end().catch(() => undefined);
    await database.drop();
  }
}

await main();
