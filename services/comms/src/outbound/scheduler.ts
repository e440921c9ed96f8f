import type { Logger } from "@voiceops/platform";
import type { OutboundEngine } from "./engine.js";

/**
 * Runs the outbound engine's passes inside the comms service: every `intervalMs`, and at once
 * when nudged (a campaign started, a result came back). Several replicas may run it together:
 * each pass claims its rows with FOR UPDATE SKIP LOCKED. Time comes from the service clock, so a
 * test moving a manual clock moves the scheduler with it.
 */
export class OutboundScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly engine: OutboundEngine,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Asks for a pass soon (after the running one, if any). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.pass().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    let next = this.intervalMs;
    try {
      this.again = false;
      const moved = await this.engine.tick();
      this.failures = 0;
      // Work left over (a full batch) or a nudge during the pass: go again at once.
      if (moved > 0 || this.again) next = 0;
    } catch (error) {
      this.failures++;
      next = Math.min(30_000, this.intervalMs * 2 ** Math.min(this.failures, 5));
      if (this.failures === 1 || this.failures % 20 === 0)
        this.logger.warn({ err: error, retryMs: next }, "outbound scheduler pass failed; will retry");
    }
    this.schedule(next);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
