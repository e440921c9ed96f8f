import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DateTime } from "luxon";
import { AdminClient, ApiClient, isolatedDatabase } from "@voiceops/platform/testing";
import { inBatches } from "./cli.js";
import { scriptNodeFlags } from "./node-flags.js";
import { autocannon, PINNED } from "./load-generator.js";

// check-availability at its stated size: a 14-day range for an organization with 20 technicians
// and 2,000 existing appointments. The system runs as `npm start` does (the embedded launcher,
// its own process), on a scratch PostgreSQL database when DATABASE_URL is set (NATS_URL too, if
// set), else on PGlite; the load comes from autocannon in another process. Reports p50/p99 of
// sequential requests (one connection) and of 10 concurrent connections, and the same for
// GET /api/technicians?available_now=true.
// Usage: [DATABASE_URL=... [NATS_URL=...]] npm run bench:availability -- [--seconds 10] [--port 18100]

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .flatMap((arg, index, all) => (arg.startsWith("--") ? [[arg.slice(2), all[index + 1] ?? ""]] : [])),
);
const SECONDS = Number(args.seconds ?? 10);
const BASE_PORT = Number(args.port ?? 18100);
const TECHNICIANS = 20;
const APPOINTMENTS = 2_000;
const ZONE = "America/Chicago";
const out = (line = "") => process.stdout.write(`${line}\n`);

function startServer(env: Record<string, string | undefined>): { child: ChildProcess; output: () => string } {
  // BENCH_PROFILE=<dir> writes the server's CPU profile there, as `npm run bench` does.
  const profile = process.env.BENCH_PROFILE
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`, "--cpu-prof-name=availability-server.cpuprofile"]
    : [];
  const node = [process.execPath, ...profile, ...scriptNodeFlags(ROOT, "start"), "dist/embedded.js"];
  const [command, ...rest] = PINNED ? ["taskset", "-c", "0", ...node] : node;
  const child = spawn(command ?? process.execPath, rest, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, output: () => output };
}

async function waitFor(url: string, server: { child: ChildProcess; output: () => string }): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited: ${server.output()}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server did not answer: ${server.output()}`);
}

const build = spawnSync(process.execPath, ["gateway/scripts/build.mjs", "--if-stale"], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) throw new Error("build failed");

const database = process.env.DATABASE_URL ? await isolatedDatabase(process.env.DATABASE_URL) : undefined;
const dataDir = mkdtempSync(join(tmpdir(), "voiceops-bench-availability-"));
const adminToken = randomBytes(18).toString("base64url");
const port = BASE_PORT;
const adminPort = BASE_PORT + 1;
const server = startServer({
  DATABASE_URL: database?.url,
  NATS_URL: database ? process.env.NATS_URL : undefined,
  INTERNAL_TOKEN: randomBytes(18).toString("base64url"),
  ADMIN_TOKEN: adminToken,
  DATA_DIR: dataDir,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  HOST: "127.0.0.1",
  PORT: String(port),
  ADMIN_PORT: String(adminPort),
});
const url = `http://127.0.0.1:${port}`;

try {
  await waitFor(`${url}/health/live`, server);
  const admin = new AdminClient(`http://127.0.0.1:${adminPort}`, adminToken);
  const org = await admin.request("POST", "/admin/organizations", {
    name: "Bench Scheduling",
    timezone: ZONE,
    business_hours: Object.fromEntries(
      ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => [day, [{ start: "07:00", end: "19:00" }]]),
    ),
  });
  const key = await admin.createKey(org.body.id as string, { role: "owner" });
  const api = new ApiClient(url, key.key);
  const started = Date.now();
  const technicians: string[] = [];
  for (let i = 0; i < TECHNICIANS; i++) {
    const created = await api.post<{ id: string }>("/api/technicians", {
      name: `Tech ${String(i).padStart(2, "0")}`,
      skills: ["plumbing", i % 2 ? "gas" : "drains"],
    });
    technicians.push(created.body.id);
  }
  const seedType = await api.post<{ id: string }>("/api/scheduling/types", {
    name: "Seed",
    duration_minutes: 45,
    slot_interval_minutes: 60,
    min_notice_minutes: 0,
    max_days_ahead: 60,
  });
  const type = await api.post<{ id: string }>("/api/scheduling/types", {
    name: "Visit",
    duration_minutes: 60,
    slot_interval_minutes: 30,
    buffer_before_minutes: 15,
    buffer_after_minutes: 15,
    min_notice_minutes: 60,
    required_skills: ["plumbing"],
  });
  // 2,000 appointments over the next 14 days: each technician has about 7 a day, hourly from 07:00.
  const tomorrow = DateTime.now().setZone(ZONE).startOf("day").plus({ days: 1 });
  const bookings: (() => Promise<number>)[] = [];
  for (let n = 0; n < APPOINTMENTS; n++) {
    const technician = n % TECHNICIANS;
    const day = Math.floor(n / TECHNICIANS) % 14;
    const hour = Math.floor(n / (TECHNICIANS * 14));
    const start = tomorrow
      .plus({ days: day })
      .set({ hour: 7 + hour + (technician % 3) })
      .toISO({ suppressMilliseconds: true });
    bookings.push(
      async () =>
        (
          await api.post("/api/scheduling/book", {
            appointment_type_id: seedType.body.id,
            start,
            technician_id: technicians[technician],
            contact: { name: `Customer ${n}` },
          })
        ).status,
    );
  }
  const statuses = await inBatches(bookings, 4);
  const booked = statuses.filter((status) => status === 201).length;
  if (booked !== APPOINTMENTS)
    throw new Error(`seeded ${booked} of ${APPOINTMENTS} appointments: ${[...new Set(statuses)].join(", ")}`);
  out(
    `storage ${database ? "PostgreSQL" : "PGlite"}; ${TECHNICIANS} technicians and ${booked} appointments seeded through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  out(
    `${cpus().length} cores; server ${PINNED ? "pinned to core 0, autocannon to core 1" : "not pinned"}; load average ${loadavg()[0]?.toFixed(1)}; ${SECONDS} s per run`,
  );

  const headers = { "x-api-key": key.key, "content-type": "application/json" };
  const body = JSON.stringify({
    appointment_type_id: type.body.id,
    date_from: tomorrow.toISODate(),
    date_to: tomorrow.plus({ days: 13 }).toISODate(),
  });
  const sample = await api.post<{ slots: unknown[] }>("/api/scheduling/check-availability", JSON.parse(body));
  if (sample.status !== 200) throw new Error(`check-availability: ${sample.status} ${JSON.stringify(sample.body)}`);
  out(`check-availability answers ${sample.body.slots.length} slots for the 14 days\n`);
  out("| request | connections | req/s | p50 ms | p99 ms | non-2xx |");
  out("|---|---|---|---|---|---|");
  for (const connections of [1, 10]) {
    const load = await autocannon(`${url}/api/scheduling/check-availability`, {
      method: "POST",
      body,
      headers,
      connections,
      seconds: SECONDS,
    });
    out(
      `| POST /api/scheduling/check-availability (14 days) | ${connections} | ${load.rps.toFixed(0)} | ${load.p50} | ${load.p99} | ${load.non2xx + load.errors} |`,
    );
  }
  for (const connections of [1, 10]) {
    const load = await autocannon(`${url}/api/technicians?available_now=true`, {
      headers,
      connections,
      seconds: SECONDS,
    });
    out(
      `| GET /api/technicians?available_now=true | ${connections} | ${load.rps.toFixed(0)} | ${load.p50} | ${load.p99} | ${load.non2xx + load.errors} |`,
    );
  }
} finally {
  server.child.kill("SIGTERM");
  await new Promise((resolve) => server.child.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
}
