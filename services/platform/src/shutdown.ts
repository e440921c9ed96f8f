import type { Logger } from "./log.js";

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. Kubernetes sends SIGTERM after preStop;
 * stop drains in-flight requests and closes connections within the grace period.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs = 25_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown timed out");
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
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
