import { type ServiceContext, type Subscription, tracedRequest, webhookDeliveryAttempts } from "@voiceops/platform";
import type { Agent } from "undici";
import type { AttemptResult, ClaimedDelivery, DeliveryStore } from "../store/deliveries.js";
import { nextAttemptAt, retryAfterMs } from "./schedule.js";
import { deliveryAgent, sendAttempt } from "./sender.js";
import { signatureHeader } from "./signing.js";

interface WorkerOptions {
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Attempts in flight at once to one endpoint: a slow endpoint holds only these. */
  perEndpoint: number;
  schedule: number[];
  allowPrivate: boolean;
  /** How often due deliveries are looked for besides the nudges of new ones. */
  pollMs: number;
}

/** A worker holds a delivery this long; if it dies, another replica takes it over after. */
const LEASE_MS = 60_000;

/**
 * Sends due deliveries. Claims are leased rows (FOR UPDATE SKIP LOCKED), so replicas share the
 * work without sending one attempt twice; outcomes are written in batches, one transaction for
 * every attempt that finished meanwhile.
 */
export class DeliveryWorker {
  private readonly agent: Agent;
  private readonly busy = new Map<string, number>();
  private inFlight = 0;
  private results: AttemptResult[] = [];
  private flushing: Promise<void> | undefined;
  private pumping = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly sends = new Set<Promise<void>>();

  constructor(
    private readonly context: ServiceContext,
    private readonly deliveries: DeliveryStore,
    private readonly options: WorkerOptions,
  ) {
    this.agent = deliveryAgent(options.allowPrivate);
  }

  start(): Subscription {
    this.tick();
    return { stop: () => this.stop() };
  }

  /** New deliveries may be due: look now rather than at the next poll. */
  nudge(): void {
    if (!this.stopped) void this.pump();
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.pump().finally(() => this.tick());
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const free = this.options.concurrency - this.inFlight;
        if (free <= 0 || this.stopped) break;
        const now = this.context.clock.now();
        const full = [...this.busy].filter(([, count]) => count >= this.options.perEndpoint).map(([id]) => id);
        let claimed: ClaimedDelivery[];
        try {
          claimed = await this.deliveries.claim(this.context.db, {
            now,
            leaseUntil: new Date(now.getTime() + LEASE_MS),
            limit: free,
            perEndpoint: this.options.perEndpoint,
            busy: this.busy,
            full,
          });
          this.failures = 0;
        } catch (error) {
          if (this.failures++ % 20 === 0)
            this.context.logger.warn({ err: error }, "webhook deliveries could not be claimed; will retry");
          break;
        }
        for (const delivery of claimed) this.launch(delivery);
        if (claimed.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } finally {
      this.pumping = false;
    }
  }

  private launch(delivery: ClaimedDelivery): void {
    this.inFlight++;
    this.busy.set(delivery.endpoint_id, (this.busy.get(delivery.endpoint_id) ?? 0) + 1);
    // The slot is free once the request is answered; its outcome is written with others after.
    const release = () => {
      this.inFlight--;
      const left = (this.busy.get(delivery.endpoint_id) ?? 1) - 1;
      if (left > 0) this.busy.set(delivery.endpoint_id, left);
      else this.busy.delete(delivery.endpoint_id);
    };
    const send = this.attempt(delivery, release).finally(() => this.sends.delete(send));
    this.sends.add(send);
  }

  private async attempt(delivery: ClaimedDelivery, release: () => void): Promise<void> {
    const at = this.context.clock.now();
    const timestamp = Math.floor(at.getTime() / 1000);
    const secrets = [delivery.secret];
    if (delivery.previous_secret && delivery.previous_secret_until && new Date(delivery.previous_secret_until) > at)
      secrets.push(delivery.previous_secret);
    const headers: Record<string, string> = {
      "webhook-id": delivery.event_id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(secrets, delivery.event_id, timestamp, delivery.body),
    };
    const outcome = await tracedRequest(
      "POST",
      delivery.traceparent,
      {
        "http.request.method": "POST",
        "server.address": new URL(delivery.url).hostname,
        "webhook.endpoint_id": delivery.endpoint_id,
        "webhook.delivery_id": delivery.id,
        "webhook.id": delivery.event_id,
        "webhook.attempt": delivery.attempts + 1,
      },
      (traceparent) =>
        sendAttempt(this.agent, delivery.url, traceparent ? { ...headers, traceparent } : headers, delivery.body),
    ).finally(release);
    const done = this.context.clock.now();
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const retryAfter = outcome.status === 429 || outcome.status === 503 ? retryAfterMs(outcome.retryAfter, done) : null;
    const next = ok ? null : nextAttemptAt(this.options.schedule, delivery.attempts + 1, done, retryAfter);
    const status = ok ? "succeeded" : next ? "failed" : "exhausted";
    webhookDeliveryAttempts.inc({ outcome: status });
    this.results.push({
      deliveryId: delivery.id,
      endpointId: delivery.endpoint_id,
      leasedUntil: new Date(delivery.leased_until),
      at,
      status,
      nextAttemptAt: next,
      responseStatus: outcome.status,
      responseBody: outcome.body,
      error: outcome.error,
      durationMs: outcome.durationMs,
      gone: outcome.status === 410,
    });
    // A slot is free again.
    this.nudge();
    await this.flush();
  }

  /** Writes every outcome gathered so far in one transaction; concurrent callers share it. */
  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.results.length === 0) return;
    const batch = this.results;
    this.results = [];
    this.flushing = (async () => {
      for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
        try {
          await this.context.db.transaction((tx) => this.deliveries.finish(tx, batch, this.context.clock.now()));
          return;
        } catch (error) {
          // The leases outlive an outage of a minute; later the rows are simply attempted again.
          this.context.logger.warn(
            { err: error, attempts: batch.length },
            "webhook attempt outcomes could not be written; will retry",
          );
          if (this.stopped && delay >= 5_000) return;
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.sends]);
    await this.flush();
    await this.agent.close().catch(() => undefined);
  }
}
