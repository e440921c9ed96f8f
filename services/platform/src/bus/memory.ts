import { subjectMatches, type BusMessage, type DurableSubscription, type EventBus, type Subscription } from "./bus.js";

/**
 * In-process bus for the embedded mode. publish() runs every matching durable handler and
 * throws if one fails, so the outbox keeps the event and the relay tries again: delivery is
 * at least once, as with JetStream, and durability comes from the outbox table. publishAll()
 * hands each durable its share of several messages at once, through its batch handler if it has
 * one: the relay delivers a claimed batch that way, so a consumer applies it in one transaction.
 */
export function createMemoryBus(): EventBus {
  const durables = new Set<DurableSubscription>();
  const listeners = new Map<string, Set<(data: Uint8Array) => void>>();
  let open = true;
  return {
    kind: "memory",
    async publish(message: BusMessage) {
      if (!open) throw new Error("bus closed");
      for (const sub of durables) {
        if (subjectMatches(sub.subject, message.subject)) {
          await sub.handler(message);
        }
      }
    },
    async publishAll(messages: BusMessage[]) {
      if (!open) throw new Error("bus closed");
      for (const sub of durables) {
        const share = messages.filter((message) => subjectMatches(sub.subject, message.subject));
        if (share.length === 0) continue;
        if (sub.batchHandler) await sub.batchHandler(share);
        else for (const message of share) await sub.handler(message);
      }
    },
    async subscribe(subscription: DurableSubscription): Promise<Subscription> {
      durables.add(subscription);
      return {
        async stop() {
          durables.delete(subscription);
        },
      };
    },
    broadcast(subject: string, data: Uint8Array) {
      for (const listener of listeners.get(subject) ?? []) listener(data);
    },
    onBroadcast(subject: string, handler: (data: Uint8Array) => void): Subscription {
      const set = listeners.get(subject) ?? new Set();
      set.add(handler);
      listeners.set(subject, set);
      return {
        async stop() {
          set.delete(handler);
        },
      };
    },
    healthy() {
      return open;
    },
    async close() {
      open = false;
      durables.clear();
      listeners.clear();
    },
  };
}
