import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { PINNED } from "./load-generator.js";

/** The repository's root, where the servers are started from. */
export const ROOT = join(import.meta.dirname, "..", "..");

export interface Proc {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

const running = new Set<Proc>();

/**
 * Free loopback ports: from `first` upwards when given (`--ports`, to keep apart from other
 * work on the machine), otherwise at random in 20000-31999, below the kernel's ephemeral range,
 * so a server that binds port 0 later (the embedded services do) cannot be handed one before its
 * owner starts.
 */
export function portAllocator(first?: number): () => Promise<number> {
  let next = first;
  return async () => {
    for (;;) {
      const port = next === undefined ? 20_000 + Math.floor(Math.random() * 12_000) : next++;
      const free = await new Promise<boolean>((resolve) => {
        const server = net.createServer();
        server.once("error", () => resolve(false));
        server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
      });
      if (free) return port;
    }
  };
}

/**
 * Starts a server process, pinned to core 0 when pinning is possible. BENCH_PROFILE=<dir> writes
 * a CPU profile of each one there (node --cpu-prof) when it stops.
 */
export function startServer(name: string, args: string[], env: Record<string, string | undefined>): Proc {
  const profile = process.env.BENCH_PROFILE
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`, `--cpu-prof-name=${name}.cpuprofile`]
    : [];
  const node = [process.execPath, ...profile, ...args];
  const [command, ...rest] = PINNED ? ["taskset", "-c", "0", ...node] : node;
  const child = spawn(command ?? process.execPath, rest, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const proc: Proc = {
    name,
    child,
    output: () => output,
    exited: new Promise((resolve) => child.on("exit", () => resolve())),
  };
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  return proc;
}

export async function stopServer(proc: Proc): Promise<void> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 15_000);
  await proc.exited;
  clearTimeout(timer);
}

/** Stops every server this benchmark started and has not stopped yet. */
export async function stopAllServers(): Promise<void> {
  for (const proc of [...running]) await stopServer(proc);
}

export async function waitFor(url: string, proc: Proc, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited: ${proc.output()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${proc.name} did not answer ${url}: ${proc.output()}`);
}

/** CPU time (user + system) a process has spent, in milliseconds. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time a server has spent, in milliseconds. */
export function cpuOf(proc: Proc): number {
  return proc.child.pid ? cpuMs(proc.child.pid) : 0;
}

/** Ticks all cores spent busy (user, system, interrupts; not idle, I/O wait or steal) and in all, from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = (
    readFileSync("/proc/stat", "utf8").split("\n")[0] ?? ""
  )
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq;
  return { busy, total: busy + idle + iowait + steal };
}

/** The share of the machine's cores busy below which it counts as quiet. */
export const QUIET_BUSY = 0.1;

/**
 * Waits until the machine is quiet (under QUIET_BUSY of its cores busy for half a second), at
 * most `maxMs`; says how long it waited and whether it found quiet.
 */
export async function waitForQuiet(maxMs: number): Promise<{ waitedMs: number; quiet: boolean }> {
  const started = Date.now();
  for (;;) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = machineTicks();
    const busy = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    if (busy < QUIET_BUSY) return { waitedMs: Date.now() - started, quiet: true };
    if (Date.now() - started >= maxMs) return { waitedMs: Date.now() - started, quiet: false };
  }
}
