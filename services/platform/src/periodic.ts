import type { Subscription } from "./bus/bus.js";
import type { Logger } from "./log.js";

/**
 * Runs `task` at once and then `intervalMs` after each run ends, until stopped. A failed run
 * is logged (the first of a series, then every twentieth) and the task runs again at the next
 * interval. stop() waits for a run in progress.
 */
export function runPeriodically(
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  logger: Logger,
): Subscription {
  let stopped = false;
  let running: Promise<void> | undefined;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = task()
        .then(
          () => {
            failures = 0;
          },
          (error: unknown) => {
            failures++;
            if (failures === 1 || failures % 20 === 0)
              logger.warn({ err: error, task: name, failures }, "periodic task failed; will retry");
          },
        )
        .finally(() => {
          running = undefined;
          schedule(intervalMs);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
