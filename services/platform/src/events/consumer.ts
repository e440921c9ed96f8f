import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { EventEnvelopeSchema } from "@voiceops/proto/voiceops/events/v1/event_envelope_pb";
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

/** How one event type of a StreamConsumer is read and applied. */
export interface TypedHandler<Desc extends DescMessage> {
  schema: Desc;
  handle(event: ReceivedEvent<Desc>, tx: Queryable, emit: (event: DomainEvent) => void): Promise<void>;
}

/** Pairs a payload schema with its handler, keeping the handler's event typed. */
export function handlerOf<Desc extends DescMessage>(schema: Desc, handle: TypedHandler<Desc>["handle"]): TypedHandler<Desc> {
  return { schema, handle };
}

/**
 * A consumer of several event types on one durable subscription (e.g. "jobs.>"), so they are
 * applied in the order they were published: a read model built from created, updated and
 * deleted events must never see an update before its create. Types without a handler are
 * skipped.
 */
export interface StreamConsumer {
  durable: string;
  subject: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handlers: Record<string, TypedHandler<any>>;
}

/** A consumer of any event type, as a service lists them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEventConsumer = EventConsumer<any> | StreamConsumer;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function handlerFor(consumer: AnyEventConsumer, data: Uint8Array): TypedHandler<any> | undefined {
  if (!("handlers" in consumer)) return consumer;
  return consumer.handlers[fromBinary(EventEnvelopeSchema, data).type];
}

/**
 * Subscribes a consumer so that each event changes the database once: the event id is
 * recorded in the consumer schema's processed_events in the same transaction as the change,
 * and a redelivered event finds it there and is skipped.
 */
export function startConsumer(deps: { bus: EventBus; db: Database; schema: string; logger: Logger; onEmitted: () => void }, consumer: AnyEventConsumer): Promise<Subscription> {
  const { bus, db, schema, logger } = deps;
  return bus.subscribe({
    durable: consumer.durable,
    subject: consumer.subject,
    handler: async (message) => {
      const typed = handlerFor(consumer, message.data);
      if (!typed) return;
      const event = decodeEvent(message.data, typed.schema);
      const emitted: DomainEvent[] = [];
      const applied = await db.transaction(async (tx) => {
        const fresh = await tx.query(
          `INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2)
           ON CONFLICT DO NOTHING RETURNING event_id`,
          [consumer.durable, event.id],
        );
        if (fresh.rowCount === 0) return false;
        await typed.handle(event, tx, (e) => emitted.push(e));
        await enqueueEvents(tx, schema, emitted);
        return true;
      });
      if (emitted.length > 0) deps.onEmitted();
      eventsConsumed.inc({ consumer: consumer.durable, outcome: applied ? "applied" : "duplicate" });
      if (!applied) logger.debug({ eventId: event.id, consumer: consumer.durable }, "duplicate event skipped");
    },
  });
}
