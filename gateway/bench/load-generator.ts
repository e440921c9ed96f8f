import { spawn, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { join } from "node:path";

/** With more than one core the servers run on core 0 and the load generator on core 1. */
export const PINNED = cpus().length > 1 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;

const RUNNER = join(import.meta.dirname, "autocannon-process.mjs");
const PACED_RUNNER = join(import.meta.dirname, "paced-callers-process.mjs");

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Every request sent, the uncounted first second of paced callers included (what the server's CPU time was spent on). */
  sent?: number;
}

export interface LoadOptions {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  seconds: number;
  connections: number;
  /** Requests per second in all (autocannon -R); unbounded when absent. */
  rate?: number;
  /** Replace `[<id>]` in the body and headers with a new id in each request (autocannon -I). */
  idReplacement?: boolean;
  /**
   * With `rate`: each connection is a caller sending one request a second, the callers' seconds
   * staggered evenly (paced-callers-process.mjs) instead of autocannon's, where every connection
   * sends at the same instant each second.
   */
  staggered?: boolean;
}

/** One autocannon run (or paced callers: `staggered`) in its own process (pinned to core 1 when pinning is possible). */
export function autocannon(url: string, options: LoadOptions): Promise<LoadResult> {
  const run = {
    url,
    connections: options.connections,
    duration: options.seconds,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    overallRate: options.rate,
    unique: options.idReplacement ?? false,
  };
  const args = options.staggered
    ? [PACED_RUNNER, JSON.stringify({ ...run, callers: options.connections })]
    : [RUNNER, JSON.stringify(run)];
  const [command, ...rest] = PINNED ? ["taskset", "-c", "1", process.execPath, ...args] : [process.execPath, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command ?? process.execPath, rest, { stdio: ["ignore", "pipe", "ignore"] });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(text) as {
        requests: { average: number; sent?: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
      };
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
        sent: options.staggered ? r.requests.sent : undefined,
      });
    });
  });
}
