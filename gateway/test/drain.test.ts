import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES, serviceAddrVariable } from "@voiceops/platform/registry";
import {
  AdminClient,
  ApiClient,
  eventually,
  freePort,
  newTenant,
  processExists,
  runEntry,
  runProcess,
  testEnv,
  waitForStatus,
  type RunningProcess,
} from "@voiceops/platform/testing";

// Graceful stop under continuous load, with real processes and signals: readiness answers 503
// at once, responses carry Connection: close, idle connections are closed, requests in flight
// finish, and the process exits 0. No request that was sent gets a reset instead of an answer.

const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
// The load here is one client as fast as it can go: the rate limit is not what is tested.
const UNLIMITED = "100000000";

interface LoadResult {
  statuses: Map<number, number>;
  /** Errors of requests that never got an answer, by code. */
  errors: Map<string, number>;
  /** Answers to requests sent once the drain had begun, and how many of them said Connection: close. */
  afterSignal: { answered: number; closing: number };
}

/** `workers` clients sending requests one after another until stop() (each at most `max`). */
function continuousLoad(makeRequest: (i: number) => Promise<Response>, workers = 8, max = 5_000) {
  const result: LoadResult = { statuses: new Map(), errors: new Map(), afterSignal: { answered: 0, closing: 0 } };
  let stopped = false;
  let signalledAt = Number.POSITIVE_INFINITY;
  const runs = Array.from({ length: workers }, async (_x, worker) => {
    for (let i = 0; i < max && !stopped; i++) {
      const sentAt = Date.now();
      try {
        const response = await makeRequest(worker * max + i);
        await response.arrayBuffer();
        result.statuses.set(response.status, (result.statuses.get(response.status) ?? 0) + 1);
        if (sentAt > signalledAt) {
          result.afterSignal.answered++;
          if (response.headers.get("connection") === "close") result.afterSignal.closing++;
        }
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        const code = cause?.code ?? (error as Error).message;
        result.errors.set(code, (result.errors.get(code) ?? 0) + 1);
        // Refused: the listener is closed. Keep trying a little so the test sees it stays closed.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
  return {
    result,
    signalled() {
      signalledAt = Date.now();
    },
    answered: () => [...result.statuses.values()].reduce((a, b) => a + b, 0),
    async stop() {
      stopped = true;
      await Promise.all(runs);
      return result;
    },
  };
}

/** A keep-alive connection that made one request and then sits idle; resolves when the server closes it. */
async function idleConnection(url: string): Promise<{ closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const answered = new Promise<void>((resolve) => socket.once("data", () => resolve()));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => undefined);
  socket.write(`GET /health/live HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  await answered;
  return { closed };
}

/**
 * The only acceptable failures are connections the closed listener refused, or reset while they
 * waited in the kernel's accept queue (their request never reached the server: the tests check
 * that every write the server processed was answered). Never a request cut while it ran.
 */
function unexpectedErrors(result: LoadResult): Record<string, number> {
  return Object.fromEntries([...result.errors].filter(([code]) => code !== "ECONNREFUSED" && code !== "ECONNRESET"));
}

/** Waits until a process has logged that it is shutting down (its drain has begun). */
async function draining(proc: RunningProcess): Promise<void> {
  await eventually(async () => (proc.output().includes("shutting down") ? true : undefined), 30_000, 10);
}

function report(what: string, result: LoadResult, extra = ""): void {
  process.stdout.write(
    `${what}: statuses ${JSON.stringify(Object.fromEntries(result.statuses))}, errors ${JSON.stringify(Object.fromEntries(result.errors))}, ` +
      `${result.afterSignal.closing}/${result.afterSignal.answered} answers after the signal said Connection: close${extra}\n`,
  );
}

describe("npm start: SIGTERM to the printed pid drains under load; killing npm stops everything", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "voiceops-drain-"));
  const started: RunningProcess[] = [];
  afterAll(async () => {
    for (const p of started) {
      if (p.child.exitCode === null && p.child.signalCode === null && p.child.pid) {
        try {
          process.kill(-p.child.pid, "SIGKILL"); // the process group this test created
        } catch {
          // already gone
        }
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function npmStart(): Promise<{ npm: RunningProcess; pid: number; url: string; admin: AdminClient }> {
    const [port, adminPort] = await Promise.all([freePort(), freePort()]);
    const env = testEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: "info",
      SHUTDOWN_DELAY_SECONDS: "5",
      RATE_LIMIT_PER_MINUTE: UNLIMITED,
    });
    const npm = runProcess("npm", ["start", "--silent"], env, { detached: true });
    started.push(npm);
    const url = `http://127.0.0.1:${port}`;
    await waitForStatus(`${url}/health/live`, 200, 120_000, npm);
    // The ready line reaches the pipe a moment after the listener answers: wait for it.
    const printed = await eventually(async () => /ready \(pid (\d+)\)/.exec(npm.output())?.[1], 60_000).catch(
      () => undefined,
    );
    const pid = Number(printed);
    expect(pid, npm.output()).toBeGreaterThan(0);
    return { npm, pid, url, admin: new AdminClient(`http://127.0.0.1:${adminPort}`, env.ADMIN_TOKEN as string) };
  }

  it("SIGTERM to the printed pid: readiness 503 at once, Connection: close, idle sockets closed, exit 0", async () => {
    const { npm, pid, url, admin } = await npmStart();
    const tenant = await newTenant(url, admin);
    const key = tenant.owner.apiKey as string;
    const idle = await idleConnection(url);
    let idleClosed = false;
    void idle.closed.then(() => (idleClosed = true));
    const load = continuousLoad((i) =>
      i % 2
        ? fetch(`${url}/api/contacts`, {
            method: "POST",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ name: `Drain ${i}` }),
          })
        : fetch(`${url}/api/contacts?page_size=5`, { headers: { "x-api-key": key } }),
    );
    await eventually(async () => (load.answered() >= 40 ? true : undefined), 60_000);

    process.kill(pid, "SIGTERM");
    await draining(npm);
    load.signalled();
    const ready = await fetch(`${url}/health/ready`);
    const readyBody = await ready.json();
    const code = await npm.exited;
    const result = await load.stop();
    report("npm start drained", result, `; readiness during the drain ${ready.status}`);

    expect(ready.status).toBe(503);
    expect(readyBody).toEqual({ status: "draining" });
    expect(code, npm.output().slice(-2_000)).toBe(0);
    expect(npm.output()).toContain("stopped");
    expect(processExists(pid)).toBe(false);
    expect(idleClosed).toBe(true);
    expect([...result.statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(unexpectedErrors(result)).toEqual({});
    expect(result.afterSignal.answered).toBeGreaterThan(0);
    expect(result.afterSignal.closing).toBe(result.afterSignal.answered);
    // Every contact answered 201 was kept.
    const restarted = await npmStart();
    try {
      const listed = await new ApiClient(restarted.url, key).get("/api/contacts?page_size=1&search=Drain");
      expect(listed.body.total).toBe(result.statuses.get(201));
    } finally {
      // Killing npm itself (not the server) stops the server too: no orphan on the ports.
      restarted.npm.child.kill("SIGTERM");
      expect(await restarted.npm.exited).toBe(0);
      await eventually(async () => (!processExists(restarted.pid) ? true : undefined), 120_000);
      await expect(fetch(`${restarted.url}/health/live`)).rejects.toThrow();
    }
  });
});

describe.skipIf(!distributed)("distributed mode: each service and the gateway drain under load", () => {
  const running: RunningProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop("SIGKILL")));
  });

  it("a service and then the gateway stop under continuous load: 503s at most, exit 0; a killed service is a 503", async () => {
    const names = [...SERVICE_NAMES];
    const ports = await Promise.all([...names, ...names, "gateway", "admin"].map(() => freePort()));
    const gatewayPort = ports[2 * names.length];
    const adminPort = ports[2 * names.length + 1];
    const env = testEnv({ SHUTDOWN_DELAY_SECONDS: "5", LOG_LEVEL: "info", RATE_LIMIT_PER_MINUTE: UNLIMITED });
    for (const [i, name] of names.entries()) env[serviceAddrVariable(name)] = `http://127.0.0.1:${ports[i]}`;
    const startService = (name: string) => {
      const i = names.indexOf(name);
      const proc = runEntry(`services/${name}/src/main.ts`, {
        ...env,
        GRPC_HOST: "127.0.0.1",
        GRPC_PORT: String(ports[i]),
        OPS_PORT: String(ports[i + names.length]),
      });
      running.push(proc);
      return proc;
    };
    const services = Object.fromEntries(names.map((name) => [name, startService(name)]));
    const gateway = runEntry("gateway/src/main.ts", {
      ...env,
      PORT: String(gatewayPort),
      ADMIN_PORT: String(adminPort),
    });
    running.push(gateway);
    let gatewayStopped = false;
    void gateway.exited.then((code) => {
      if (!gatewayStopped)
        process.stdout.write(`gateway exited unexpectedly (${code}):\n${gateway.output().slice(-5_000)}\n`);
    });
    const url = `http://127.0.0.1:${gatewayPort}`;
    const crmOps = `http://127.0.0.1:${ports[names.length + names.indexOf("crm")]}`;
    await waitForStatus(`${url}/health`, 200, 120_000, gateway);
    const tenant = await newTenant(url, new AdminClient(`http://127.0.0.1:${adminPort}`, env.ADMIN_TOKEN as string));
    const key = tenant.owner.apiKey as string;
    const contacts = (i: number) =>
      i % 2
        ? fetch(`${url}/api/contacts`, {
            method: "POST",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ name: `Service Drain ${i}` }),
          })
        : fetch(`${url}/api/contacts?page_size=5`, { headers: { "x-api-key": key } });

    // 1. crm drains: its readiness is 503 at once; calls in flight finish; later calls are 503s.
    let load = continuousLoad(contacts);
    await eventually(async () => (load.answered() >= 40 ? true : undefined), 60_000);
    services.crm?.child.kill("SIGTERM");
    await draining(services.crm as RunningProcess);
    const crmReady = await fetch(`${crmOps}/health/ready`);
    expect(await services.crm?.exited).toBe(0);
    let result = await load.stop();
    report("crm drained", result, `; crm readiness during the drain ${crmReady.status}`);
    expect(crmReady.status).toBe(503);
    expect([...result.statuses.keys()].filter((s) => s !== 200 && s !== 201 && s !== 503)).toEqual([]);
    expect(unexpectedErrors(result), gateway.output().slice(-5_000)).toEqual({});

    // 2. crm dies mid-request (SIGKILL): whatever was in flight is a 503, never a 409 or a leak.
    const crm = startService("crm");
    await waitForStatus(`${crmOps}/health/ready`, 200, 120_000, crm);
    load = continuousLoad(contacts);
    await eventually(async () => (load.answered() >= 40 ? true : undefined), 60_000);
    crm.child.kill("SIGKILL");
    await crm.exited;
    const failed = await fetch(`${url}/api/contacts`, { headers: { "x-api-key": key } });
    const failedBody = await failed.json();
    result = await load.stop();
    report("crm killed", result);
    expect(failed.status).toBe(503);
    expect(failedBody).toEqual({ detail: "Service temporarily unavailable" });
    expect([...result.statuses.keys()].filter((s) => s !== 200 && s !== 201 && s !== 503)).toEqual([]);
    expect(unexpectedErrors(result)).toEqual({});

    // 3. The gateway drains: readiness 503 at once, Connection: close, exit 0.
    await waitForStatus(`${crmOps}/health/ready`, 200, 120_000, startService("crm"));
    load = continuousLoad(contacts);
    await eventually(async () => (load.answered() >= 40 ? true : undefined), 60_000);
    gatewayStopped = true;
    gateway.child.kill("SIGTERM");
    await draining(gateway);
    load.signalled();
    const gatewayReady = await fetch(`${url}/health/ready`);
    expect(await gateway.exited).toBe(0);
    result = await load.stop();
    report("gateway drained", result, `; readiness during the drain ${gatewayReady.status}`);
    expect(gatewayReady.status).toBe(503);
    expect([...result.statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(unexpectedErrors(result)).toEqual({});
    expect(result.afterSignal.closing).toBe(result.afterSignal.answered);

    // 4. Every service exits 0 on SIGTERM.
    const codes = await Promise.all(
      running.filter((r) => r.child.exitCode === null && r.child.signalCode === null).map((r) => r.stop("SIGTERM")),
    );
    expect(codes.every((c) => c === 0)).toBe(true);
  });
});
