import { ConfigError, envInt } from "./config.js";
import type { Logger } from "./log.js";

interface ShutdownHooks {
  /** Called at once on a signal: readiness answers 503 and responses close their connections. */
  drain?: () => void;
  /** Called after the delay: stop accepting, let in-flight requests finish, close everything. */
  stop: () => Promise<void>;
}

interface ShutdownOptions {
  /** How long a SIGTERM'd process keeps serving while load balancers take it out (SIGINT: none): shutdownDelayMs(env). */
  delayMs: number;
  /** Past this, the process exits 1 whatever is still running. */
  timeoutMs?: number;
}

/** SHUTDOWN_DELAY_SECONDS: how long a process keeps serving, draining, after SIGTERM (default 2). */
export function shutdownDelayMs(env: Record<string, string | undefined>): number {
  return envInt("SHUTDOWN_DELAY_SECONDS", 2, { min: 0, max: 60 }, env) * 1000;
}

/**
 * Graceful stop on SIGTERM or SIGINT, once: drain at once (readiness 503, `Connection: close`),
 * keep serving for the delay on SIGTERM (Kubernetes removes the endpoint meanwhile; Ctrl-C does
 * not wait), then stop: in-flight requests finish, connections close, exit 0.
 */
export function onShutdown(
  logger: Logger,
  hooks: ShutdownHooks | (() => Promise<void>),
  options: ShutdownOptions,
): void {
  const { drain, stop } = typeof hooks === "function" ? { drain: undefined, stop: hooks } : hooks;
  const { delayMs } = options;
  const timeoutMs = options.timeoutMs ?? 25_000;
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const wait = signal === "SIGTERM" ? delayMs : 0;
    logger.info({ signal, delayMs: wait }, "shutting down: draining");
    const timer = setTimeout(() => {
      logger.error("shutdown timed out");
      process.exit(1);
    }, timeoutMs + wait);
    timer.unref();
    drain?.();
    new Promise((resolve) => setTimeout(resolve, wait))
      .then(() => stop())
      .then(
        () => {
          logger.info("stopped");
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

/**
 * Runs a process's main function. A configuration error prints one line naming the variable
 * (no stack trace); so does a dependency that cannot be reached at start-up. Exit code 1.
 */
export function runMain(main: () => Promise<unknown>): Promise<void> {
  return main().then(
    () => undefined,
    (error: unknown) => {
      const code = (error as { code?: unknown })?.code;
      if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
      else if (error instanceof Error && typeof code === "string")
        process.stderr.write(`start-up failed: ${error.message} (${code})\n`);
      else
        process.stderr.write(
          `start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
      process.exit(1);
    },
  );
}
