import type { DescMessage } from "@bufbuild/protobuf";
import type { EventBus, Subscription } from "../bus/bus.js";
import type { Database, Queryable } from "../db/database.js";
import type { Logger } from "../log.js";
import { eventsConsumed } from "../metrics.js";
import { decodeEvent, type DomainEvent, type ReceivedEvent } from "./envelope.js";
import { enqueueEvents } from "./outbox.js";

export interface EventConsumer<Desc extends DescMessage> {
  /** Durable name, shared by every replica of the consuming service. */
  durable: string;
  /** The event type (subject) this consumer handles, e.g. "crm.contact.deleted". */
  subject: string;
  schema: Desc;
  /**
   * Applies the event inside a transaction of the consumer's database; events it emits go to
   * the consumer's outbox in that transaction.
   */
  handle(event: ReceivedEvent<Desc>, tx: Queryable, emit: (event: DomainEvent) => void): Promise<void>;
}

/** A consumer of any event type, as a service lists them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEventConsumer = EventConsumer<any>;

/**
 * Subscribes a consumer so that each event changes the database once: the event id is
 * recorded in the consumer schema's processed_events in the same transaction as the change,
 * and a redelivered event finds it there and is skipped.
 */
export function startConsumer<Desc extends DescMessage>(
  deps: { bus: EventBus; db: Database; schema: string; logger: Logger; onEmitted: () => void },
  consumer: EventConsumer<Desc>,
): Promise<Subscription> {
  const { bus, db, schema, logger } = deps;
  return bus.subscribe({
    durable: consumer.durable,
    subject: consumer.subject,
    handler: async (message) => {
      const event = decodeEvent(message.data, consumer.schema);
      const emitted: DomainEvent[] = [];
      const applied = await db.transaction(async (tx) => {
        const fresh = await tx.query(
          `INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2)
           ON CONFLICT DO NOTHING RETURNING event_id`,
          [consumer.durable, event.id],
        );
        if (fresh.rowCount === 0) return false;
        await consumer.handle(event, tx, (e) => emitted.push(e));
        await enqueueEvents(tx, schema, emitted);
        return true;
      });
      if (emitted.length > 0) deps.onEmitted();
      eventsConsumed.inc({ consumer: consumer.durable, outcome: applied ? "applied" : "duplicate" });
      if (!applied) logger.debug({ eventId: event.id, consumer: consumer.durable }, "duplicate event skipped");
    },
  });
}
