import type { ConsumerMessages, JetStreamClient, JsMsg, JetStreamManager, NatsConnection } from "nats";
import type { Logger } from "../log.js";
import { consumerPending } from "../metrics.js";
import { streamOf, type BusMessage, type DurableSubscription, type EventBus, type Subscription } from "./bus.js";

/** The nats package, loaded on first use: a process on the in-process bus never loads it (start-up time). */
let natsPackage: Promise<typeof import("nats")> | undefined;
const loadNats = () => (natsPackage ??= import("nats"));

/** The headers of a message published in a trace. */
async function traceHeaders(traceparent: string) {
  const headers = (await loadNats()).headers();
  headers.set("traceparent", traceparent);
  return headers;
}

const DAY_NS = 24 * 60 * 60 * 1_000_000_000;
const SECOND_NS = 1_000_000_000;

interface NatsBusOptions {
  url: string;
  name: string;
  logger: Logger;
  /**
   * Namespace of this environment on a shared NATS server: stream names, subjects and durable
   * consumer names all carry it, so two environments (a test run and a running stack) never
   * share a stream or steal each other's events. Callers see unprefixed subjects.
   */
  prefix: string;
  /** How long streams keep events (the history a replay, such as a read-model rebuild, can see). */
  retentionDays: number;
  publishTimeoutMs?: number;
}

/** What the names of a namespace's streams begin with ("VO_1A2B3C4D5E_" for "vo_1a2b3c4d5e"). */
export function streamNamespace(prefix: string): string {
  return `${prefix.toUpperCase()}_`;
}

/**
 * JetStream bus. The connection is made in the background and retried forever, so a service
 * starts (and keeps writing to its outbox) while NATS is down; publish() fails until it is back.
 */
export function createNatsBus(options: NatsBusOptions): EventBus {
  const { logger, prefix } = options;
  const wireSubject = (subject: string) => `${prefix}.${subject}`;
  const localSubject = (subject: string) =>
    subject.startsWith(`${prefix}.`) ? subject.slice(prefix.length + 1) : subject;
  const wireStream = (subject: string) => `${streamNamespace(prefix)}${streamOf(subject)}`;
  const wireDurable = (durable: string) => `${prefix}-${durable}`;
  let connection: NatsConnection | undefined;
  /** Between a "disconnect" status and the "reconnect" that follows it (nats.js's public status events). */
  let disconnected = false;
  let closed = false;
  const ensuredStreams = new Map<string, Promise<void>>();
  const waiters: Array<() => void> = [];
  const subscriptions = new Set<Subscription>();

  const connecting = loadNats()
    .then(({ connect }) =>
      connect({
        servers: options.url,
        name: options.name,
        waitOnFirstConnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        timeout: 2_000,
        // Each request (every JetStream publish is one) would otherwise build up to three Error
        // objects with stack traces in advance, in case it fails: about 6% of the crm's CPU
        // under the write load. A failed publish still says what failed; the relay retries it.
        noAsyncTraces: true,
      }),
    )
    .then(
      (nc) => {
        connection = nc;
        logger.info({ url: options.url }, "connected to NATS");
        for (const wake of waiters.splice(0)) wake();
        void (async () => {
          for await (const status of nc.status()) {
            if (status.type === "disconnect") disconnected = true;
            else if (status.type === "reconnect") disconnected = false;
            if (status.type === "disconnect" || status.type === "reconnect") {
              logger.warn({ status: status.type }, "NATS connection status");
            }
          }
        })();
        return nc;
      },
      (error: unknown) => {
        logger.error({ err: error }, "NATS connection failed");
        throw error;
      },
    );
  connecting.catch(() => undefined);

  function ready(): Promise<NatsConnection> {
    if (connection) return Promise.resolve(connection);
    return new Promise((resolve, reject) => {
      if (closed) return reject(new Error("bus closed"));
      waiters.push(() => (connection ? resolve(connection) : reject(new Error("bus closed"))));
    });
  }

  /** Ensures the stream holding `subject` (an unprefixed subject); resolves its name. */
  async function ensureStream(jsm: JetStreamManager, subject: string): Promise<string> {
    const stream = wireStream(subject);
    let pending = ensuredStreams.get(stream);
    if (!pending) {
      pending = (async () => {
        const { RetentionPolicy, StorageType } = await loadNats();
        const config = {
          name: stream,
          subjects: [wireSubject(`${subject.split(".", 1)[0]}.>`)],
          retention: RetentionPolicy.Limits,
          storage: StorageType.File,
          max_age: options.retentionDays * DAY_NS,
          duplicate_window: 120 * SECOND_NS,
        };
        try {
          const info = await jsm.streams.info(stream);
          if (info.config.max_age !== config.max_age)
            await jsm.streams.update(stream, { ...info.config, max_age: config.max_age });
        } catch {
          try {
            await jsm.streams.add(config);
          } catch (error) {
            // Another replica created it between our look and our add.
            await jsm.streams.info(stream).catch(() => {
              throw error;
            });
          }
        }
      })();
      pending.catch(() => ensuredStreams.delete(stream));
      ensuredStreams.set(stream, pending);
    }
    await pending;
    return stream;
  }

  let jsmCache: JetStreamManager | undefined;
  let jsCache: JetStreamClient | undefined;
  async function jetstream(): Promise<{ js: JetStreamClient; jsm: JetStreamManager }> {
    const nc = await ready();
    jsmCache ??= await nc.jetstreamManager();
    jsCache ??= nc.jetstream();
    return { js: jsCache, jsm: jsmCache };
  }

  return {
    kind: "nats",
    async publish(message: BusMessage) {
      if (!connection || connection.isClosed()) throw new Error("NATS is not connected");
      const { js, jsm } = await jetstream();
      await ensureStream(jsm, message.subject);
      await js.publish(wireSubject(message.subject), message.data, {
        msgID: message.id,
        timeout: options.publishTimeoutMs ?? 5_000,
        ...(message.traceparent ? { headers: await traceHeaders(message.traceparent) } : {}),
      });
    },
    async subscribe(subscription: DurableSubscription): Promise<Subscription> {
      const busMessageOf = (msg: JsMsg): BusMessage => ({
        subject: localSubject(msg.subject),
        id: msg.headers?.get("Nats-Msg-Id") ?? "",
        data: msg.data,
        traceparent: msg.headers?.get("traceparent") || undefined,
      });
      // Messages that arrive while a batch is applied are applied together next, in order: one
      // transaction for all of them instead of one per message.
      const consumeInBatches = async (
        messages: AsyncIterable<JsMsg>,
        handle: (batch: BusMessage[]) => Promise<void>,
        durable: string,
      ) => {
        const waiting: JsMsg[] = [];
        let wake: (() => void) | undefined;
        let ended = false;
        const applying = (async () => {
          for (;;) {
            if (waiting.length === 0) {
              if (ended) return;
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
              continue;
            }
            const batch = waiting.splice(0, 64);
            try {
              await handle(batch.map(busMessageOf));
              for (const msg of batch) msg.ack();
              consumerPending.set({ consumer: durable }, batch.at(-1)?.info.pending ?? 0);
            } catch (error) {
              logger.error({ err: error, durable, messages: batch.length }, "event handler failed; redelivering");
              for (const msg of batch) msg.nak(1_000);
            }
          }
        })();
        try {
          for await (const msg of messages) {
            waiting.push(msg);
            wake?.();
          }
        } finally {
          ended = true;
          wake?.();
          await applying;
        }
      };

      let stopped = false;
      let messages: ConsumerMessages | undefined;
      const durable = wireDurable(subscription.durable);
      const filter = wireSubject(subscription.subject);
      const consumeOnce = async () => {
        const { js, jsm } = await jetstream();
        const { AckPolicy, DeliverPolicy } = await loadNats();
        const stream = await ensureStream(jsm, subscription.subject);
        try {
          await jsm.consumers.info(stream, durable);
          await jsm.consumers.update(stream, durable, { filter_subject: filter });
        } catch {
          await jsm.consumers.add(stream, {
            durable_name: durable,
            ack_policy: AckPolicy.Explicit,
            deliver_policy: subscription.startAt === "new" ? DeliverPolicy.New : DeliverPolicy.All,
            filter_subject: filter,
            ack_wait: 30 * SECOND_NS,
            max_deliver: -1,
            ...(subscription.expireAfterIdleMs
              ? { inactive_threshold: subscription.expireAfterIdleMs * 1_000_000 }
              : {}),
          });
        }
        const consumer = await js.consumers.get(stream, durable);
        messages = await consumer.consume({ max_messages: 64 });
        const { batchHandler } = subscription;
        if (batchHandler) {
          await consumeInBatches(messages, batchHandler, subscription.durable);
          return;
        }
        for await (const msg of messages) {
          try {
            await subscription.handler(busMessageOf(msg));
            msg.ack();
            consumerPending.set({ consumer: subscription.durable }, msg.info.pending);
          } catch (error) {
            logger.error(
              { err: error, subject: msg.subject, durable: subscription.durable },
              "event handler failed; redelivering",
            );
            msg.nak(1_000);
          }
        }
      };
      // Keep consuming across NATS outages and consumer restarts until stopped.
      void (async () => {
        while (!stopped && !closed) {
          try {
            await consumeOnce();
          } catch (error) {
            if (!stopped && !closed)
              logger.warn({ err: error, durable: subscription.durable }, "consumer interrupted; retrying");
          }
          if (!stopped && !closed) await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      })();
      const handle = {
        async stop() {
          stopped = true;
          messages?.stop();
          subscriptions.delete(handle);
        },
      };
      subscriptions.add(handle);
      return handle;
    },
    broadcast(subject: string, data: Uint8Array) {
      if (connection && !connection.isClosed()) connection.publish(wireSubject(subject), data);
    },
    onBroadcast(subject: string, handler: (data: Uint8Array) => void): Subscription {
      let sub: { unsubscribe(): void } | undefined;
      let stopped = false;
      void ready()
        .then((nc) => {
          if (stopped) return;
          sub = nc.subscribe(wireSubject(subject), { callback: (_err, msg) => handler(msg.data) });
        })
        .catch(() => undefined);
      return {
        async stop() {
          stopped = true;
          sub?.unsubscribe();
        },
      };
    },
    healthy() {
      return connection !== undefined && !connection.isClosed() && connection.info !== undefined && !disconnected;
    },
    async close() {
      closed = true;
      for (const subscription of [...subscriptions]) await subscription.stop();
      for (const wake of waiters.splice(0)) wake();
      if (connection) await connection.drain().catch(() => connection?.close());
      else void connecting.then((nc) => nc.close()).catch(() => undefined);
    },
  };
}
