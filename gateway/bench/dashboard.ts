import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type Browser, chromiumAvailable, launchBrowser, setPassword } from "../test/browser-helpers.js";
import { inBatches, median, parseArgs } from "./cli.js";
import { scriptNodeFlags } from "./node-flags.js";
import { portAllocator, ROOT, startServer, stopAllServers, waitFor } from "./processes.js";

// The dashboard's overview on the embedded system (`npm start`: PGlite, in-process bus, its own
// process) with 10,000 contacts and a month of calls, leads and service requests, all made
// through the REST API: Chromium signs in once, then loads /app/ again and again and reports
// the time from the navigation's start to the overview's charts drawn (both line charts on
// their canvases and the status bars), with the browser's cache off (every byte of the app
// fetched again) and on (as a returning owner sees it).
// Usage: npm run bench:dashboard -- [--runs 10] [--contacts 10000] [--ports 18200]

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.runs ?? 10);
const CONTACTS = Number(args.contacts ?? 10_000);
const LEADS = 300;
const CALLS = 600;
const REQUESTS = 200;
const DAYS = 30;
const PASSWORD = "a long benchmark password";
const out = (line = "") => process.stdout.write(`${line}\n`);

if (!chromiumAvailable) throw new Error("Chromium is missing (CHROMIUM_PATH, default /usr/bin/chromium)");
const build = spawnSync(process.execPath, ["gateway/scripts/build.mjs", "--if-stale"], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) throw new Error("build failed");

const nextPort = portAllocator(args.ports ? Number(args.ports) : undefined);
const [port, adminPort] = [await nextPort(), await nextPort()];
const url = `http://127.0.0.1:${port}`;
const adminUrl = `http://127.0.0.1:${adminPort}`;
const adminToken = randomBytes(18).toString("base64url");
const internalApiKey = randomBytes(18).toString("base64url");
const dataDir = mkdtempSync(join(tmpdir(), "voiceops-bench-dashboard-"));
const server = startServer("embedded", [...scriptNodeFlags(ROOT, "start"), "dist/embedded.js"], {
  DATA_DIR: dataDir,
  ADMIN_TOKEN: adminToken,
  INTERNAL_TOKEN: randomBytes(18).toString("base64url"),
  INTERNAL_API_KEY: internalApiKey,
  PUBLIC_URL: url,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  HOST: "127.0.0.1",
  PORT: String(port),
  ADMIN_PORT: String(adminPort),
});

async function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** Milliseconds from the navigation's start to both line charts and the status bars drawn. */
async function overviewTime(page: Page): Promise<number> {
  await page.goto(`${url}/app/`, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    () => {
      // Runs in the page (this file has no DOM types).
      const { document, performance } = globalThis as unknown as {
        document: { querySelectorAll(selector: string): { length: number; [i: number]: { width: number } } };
        performance: { now(): number };
      };
      const canvases = document.querySelectorAll(".plot canvas");
      const drawn = canvases.length >= 2 && (canvases[0]?.width ?? 0) > 0 && (canvases[1]?.width ?? 0) > 0;
      return drawn && document.querySelectorAll(".bars li").length > 0 ? performance.now() : 0;
    },
    undefined,
    { polling: "raf", timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

const summary = (times: number[]) =>
  `median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(", ")})`;

let browser: Browser | undefined;
try {
  await waitFor(`${url}/health/live`, server);
  const admin = { authorization: `Bearer ${adminToken}` };
  const org = await send(adminUrl, "POST", "/admin/organizations", admin, { name: "Bench Heating & Plumbing" });
  const orgId = org.body.id as string;
  const key = (await send(adminUrl, "POST", `/admin/organizations/${orgId}/api-keys`, admin, { role: "owner" })).body
    .key as string;
  const owner = { "x-api-key": key };
  const internal = { ...owner, "x-internal-key": internalApiKey };

  const started = Date.now();
  const day = 86_400_000;
  const jobs: (() => Promise<unknown>)[] = [];
  const phone = (i: number) => `+1555${String(i).padStart(7, "0")}`;
  for (let i = 0; i < CONTACTS - LEADS; i++)
    jobs.push(() =>
      send(url, "POST", "/api/contacts", owner, {
        name: `Contact ${i}`,
        phone_number: phone(i),
        email: `c${i}@bench.example`,
        status: (["lead", "customer", "inactive"] as const)[i % 3],
      }),
    );
  for (let i = 0; i < LEADS; i++)
    jobs.push(() => send(url, "POST", "/api/leads", owner, { name: `Lead ${i}`, phone_number: phone(CONTACTS + i) }));
  for (let i = 0; i < REQUESTS; i++)
    jobs.push(() => send(url, "POST", "/api/service-requests", owner, { description: `Request ${i}` }));
  // Calls spread over the last month, as the voice runtime logs them after they end.
  for (let i = 0; i < CALLS; i++)
    jobs.push(() =>
      send(url, "POST", "/api/activities", internal, {
        activity_type: "CALL_ENDED",
        session_id: `bench-call-${i}`,
        occurred_at: new Date(Date.now() - ((i * DAYS * day) / CALLS + 60_000)).toISOString(),
        metadata: { duration_seconds: 60 + (i % 240), channel: "phone", from_number: phone(i), outcome: "answered" },
      }),
    );
  await inBatches(jobs, 8);
  // The overview reads the statistics' read models, which the events fill: wait until they show everything.
  const deadline = Date.now() + 300_000;
  for (;;) {
    const dashboard = (await send(url, "GET", "/api/statistics/dashboard", owner)).body;
    if (dashboard.contacts_total === CONTACTS) break;
    if (Date.now() > deadline)
      throw new Error(`the statistics show ${dashboard.contacts_total} of ${CONTACTS} contacts`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  out(
    `seeded ${CONTACTS} contacts (${LEADS} of them leads), ${CALLS} calls and ${REQUESTS} service requests through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  const user = await send(adminUrl, "POST", `/admin/organizations/${orgId}/users`, admin, {
    email: "owner@bench.example",
    role: "owner",
  });
  browser = await launchBrowser();
  const { page } = browser;
  await setPassword(page, user.body.setup_url as string, PASSWORD);
  await overviewTime(page); // the first load of the signed-in app, not counted

  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  const cold: number[] = [];
  for (let i = 0; i < RUNS; i++) cold.push(await overviewTime(page));
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await overviewTime(page));

  out(`\noverview to charts drawn, ${RUNS} runs each (embedded system, ${CONTACTS} contacts):`);
  out(`  cache off: ${summary(cold)}`);
  out(`  cache on:  ${summary(warm)}`);
} finally {
  await browser?.close();
  await stopAllServers();
  rmSync(dataDir, { recursive: true, force: true });
}
