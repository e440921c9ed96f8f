import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { join } from "node:path";
import { eventually } from "./index.js";

// Helpers for tests that run the system as real processes, the way an operator does.

/** The repository's root folder. */
export const REPO_ROOT = join(import.meta.dirname, "..", "..", "..", "..");

/** A TCP port that was free a moment ago, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs a command from the repository root with only the given environment (plus PATH and HOME).
 * `detached` puts it in a process group of its own, so a test can signal the whole group.
 */
export function runProcess(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  options: { detached?: boolean } = {},
): RunningProcess {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a TypeScript entry point of the repository with node and tsx. */
export function runEntry(entry: string, env: Record<string, string | undefined>, args: string[] = []): RunningProcess {
  return runProcess(process.execPath, ["--import", "tsx", entry, ...args], env);
}

/**
 * Waits until GET url answers with the status. Given the process that should answer, a process
 * that exits first fails the wait at once, and either failure carries what the process printed
 * (a port taken, a start-up error).
 */
export async function waitForStatus(
  url: string,
  status: number,
  timeoutMs: number,
  answering?: RunningProcess,
): Promise<void> {
  let exitCode: number | null | undefined;
  void answering?.exited.then((code) => {
    exitCode = code;
  });
  const said = () => (answering ? `; the process said:\n${answering.output().slice(-4000)}` : "");
  try {
    await eventually(
      async () =>
        exitCode !== undefined || ((await fetch(url).catch(() => undefined))?.status === status ? true : undefined),
      timeoutMs,
      100,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}${said()}`);
  }
  if (exitCode !== undefined) throw new Error(`exited (${exitCode}) before ${url} answered ${status}${said()}`);
}

/** Whether a process with this id still exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
