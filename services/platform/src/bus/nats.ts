import {
  AckPolicy,
  connect,
  DeliverPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from "nats";
import type { Logger } from "../log.js";
import { consumerPending } from "../metrics.js";
import { streamOf, type BusMessage, type DurableSubscription, type EventBus, type Subscription } from "./bus.js";

const DAY_NS = 24 * 60 * 60 * 1_000_000_000;
const SECOND_NS = 1_000_000_000;

export interface NatsBusOptions {
  url: string;
  name: string;
  logger: Logger;
  publishTimeoutMs?: number;
}

/**
 * JetStream bus. The connection is made in the background and retried forever, so a service
 * starts (and keeps writing to its outbox) while NATS is down; publish() fails until it is back.
 */
export function createNatsBus(options: NatsBusOptions): EventBus {
  const { logger } = options;
  let connection: NatsConnection | undefined;
  let closed = false;
  const ensuredStreams = new Map<string, Promise<void>>();
  const waiters: Array<() => void> = [];
  const subscriptions = new Set<Subscription>();

  const connecting = connect({
    servers: options.url,
    name: options.name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 2_000,
  }).then(
    (nc) => {
      connection = nc;
      logger.info({ url: options.url }, "connected to NATS");
      for (const wake of waiters.splice(0)) wake();
      void (async () => {
        for await (const status of nc.status()) {
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

  function ensureStream(jsm: JetStreamManager, stream: string): Promise<void> {
    let pending = ensuredStreams.get(stream);
    if (!pending) {
      pending = (async () => {
        const config = {
          name: stream,
          subjects: [`${stream.toLowerCase()}.>`],
          retention: RetentionPolicy.Limits,
          storage: StorageType.File,
          max_age: 7 * DAY_NS,
          duplicate_window: 120 * SECOND_NS,
        };
        try {
          await jsm.streams.info(stream);
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
    return pending;
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
      await ensureStream(jsm, streamOf(message.subject));
      await js.publish(message.subject, message.data, {
        msgID: message.id,
        timeout: options.publishTimeoutMs ?? 5_000,
      });
    },
    async subscribe(subscription: DurableSubscription): Promise<Subscription> {
      let stopped = false;
      let messages: ConsumerMessages | undefined;
      const stream = streamOf(subscription.subject);
      const consumeOnce = async () => {
        const { js, jsm } = await jetstream();
        await ensureStream(jsm, stream);
        try {
          await jsm.consumers.info(stream, subscription.durable);
          await jsm.consumers.update(stream, subscription.durable, { filter_subject: subscription.subject });
        } catch {
          await jsm.consumers.add(stream, {
            durable_name: subscription.durable,
            ack_policy: AckPolicy.Explicit,
            deliver_policy: subscription.startAt === "new" ? DeliverPolicy.New : DeliverPolicy.All,
            filter_subject: subscription.subject,
            ack_wait: 30 * SECOND_NS,
            max_deliver: -1,
            ...(subscription.expireAfterIdleMs ? { inactive_threshold: subscription.expireAfterIdleMs * 1_000_000 } : {}),
          });
        }
        const consumer = await js.consumers.get(stream, subscription.durable);
        messages = await consumer.consume({ max_messages: 64 });
        for await (const msg of messages) {
          try {
            await subscription.handler({ subject: msg.subject, id: msg.headers?.get("Nats-Msg-Id") ?? "", data: msg.data });
            msg.ack();
            consumerPending.set({ consumer: subscription.durable }, msg.info.pending);
          } catch (error) {
            logger.error({ err: error, subject: msg.subject, durable: subscription.durable }, "event handler failed; redelivering");
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
            if (!stopped && !closed) logger.warn({ err: error, durable: subscription.durable }, "consumer interrupted; retrying");
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
      if (connection && !connection.isClosed()) connection.publish(subject, data);
    },
    onBroadcast(subject: string, handler: (data: Uint8Array) => void): Subscription {
      let sub: { unsubscribe(): void } | undefined;
      let stopped = false;
      void ready().then((nc) => {
        if (stopped) return;
        sub = nc.subscribe(subject, { callback: (_err, msg) => handler(msg.data) });
      }).catch(() => undefined);
      return {
        async stop() {
          stopped = true;
          sub?.unsubscribe();
        },
      };
    },
    healthy() {
      return connection !== undefined && !connection.isClosed() && connection.info !== undefined && !reconnecting(connection);
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

function reconnecting(nc: NatsConnection): boolean {
  // nats.js exposes no public "is connected" flag; a pending reconnect shows as a missing server.
  const protocol = (nc as unknown as { protocol?: { connected?: boolean } }).protocol;
  return protocol?.connected === false;
}
