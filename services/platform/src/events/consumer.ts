import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { EventEnvelopeSchema } from "@voiceops/proto/voiceops/events/v1/event_envelope_pb";
import type { BusMessage, EventBus, Subscription } from "../bus/bus.js";
import type { Database, Queryable } from "../db/database.js";
import type { Logger } from "../log.js";
import { eventsConsumed } from "../metrics.js";
import { type DomainEvent, eventOf, type ReceivedEvent } from "./envelope.js";
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
  handleAll?: TypedHandler<Desc>["handleAll"];
}

/** How one event type of a StreamConsumer is read and applied. */
export interface TypedHandler<Desc extends DescMessage> {
  schema: Desc;
  handle(event: ReceivedEvent<Desc>, tx: Queryable, emit: (event: DomainEvent) => void): Promise<void>;
  /**
   * Optional: applies consecutive events of this type delivered together (the in-process bus
   * hands over the relay's batch) with the same effect as `handle` on each in turn, in fewer
   * statements. A run of one goes to `handle`.
   */
  handleAll?(events: ReceivedEvent<Desc>[], tx: Queryable, emit: (event: DomainEvent) => void): Promise<void>;
}

/** Pairs a payload schema with its handler (and its handler of runs), keeping the events typed. */
export function handlerOf<Desc extends DescMessage>(
  schema: Desc,
  handle: TypedHandler<Desc>["handle"],
  handleAll?: TypedHandler<Desc>["handleAll"],
): TypedHandler<Desc> {
  return handleAll ? { schema, handle, handleAll } : { schema, handle };
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
function handlerFor(consumer: AnyEventConsumer, type: string): TypedHandler<any> | undefined {
  if (!("handlers" in consumer)) return consumer;
  return consumer.handlers[type];
}

/**
 * Consecutive items whose handlers share one `handleAll` function, together (one handler, or
 * handlers of several types built around the same function); every other item alone.
 */
function runsOf<T extends { typed: TypedHandler<DescMessage> }>(items: T[]): T[][] {
  const runs: T[][] = [];
  for (const item of items) {
    const last = runs.at(-1);
    if (last && item.typed.handleAll && last[0]?.typed.handleAll === item.typed.handleAll) last.push(item);
    else runs.push([item]);
  }
  return runs;
}

/** Events applied in one transaction at most, so a backlog does not hold the database for long. */
const BATCH_LIMIT = 64;

/**
 * Subscribes a consumer so that each event changes the database once: the event id is
 * recorded in the consumer schema's processed_events in the same transaction as the change,
 * and a redelivered event finds it there and is skipped. Events delivered together (the
 * in-process bus hands over the relay's batch) are applied in one transaction, in order: a
 * transaction and its ledger insert per batch instead of per event, and consecutive events of a
 * type whose handler has `handleAll` in one call of it.
 */
export function startConsumer(
  deps: { bus: EventBus; db: Database; schema: string; logger: Logger; onEmitted: () => void },
  consumer: AnyEventConsumer,
): Promise<Subscription> {
  const { bus, db, schema, logger } = deps;
  const apply = async (messages: BusMessage[]) => {
    const events: { typed: TypedHandler<DescMessage>; event: ReceivedEvent<DescMessage> }[] = [];
    for (const message of messages) {
      // The envelope once: its type picks the handler, whose schema reads the payload.
      const envelope = fromBinary(EventEnvelopeSchema, message.data);
      const typed = handlerFor(consumer, envelope.type);
      if (typed) events.push({ typed, event: eventOf(envelope, typed.schema, message.traceparent) });
    }
    if (events.length === 0) return;
    const emitted: DomainEvent[] = [];
    const applied = await db.transaction(async (tx) => {
      const fresh = await tx.query<{ event_id: string }>(
        `INSERT INTO ${schema}.processed_events (consumer, event_id)
         SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id`,
        [consumer.durable, events.map(({ event }) => event.id)],
        { prepared: true },
      );
      const unseen = new Set(fresh.rows.map((row) => row.event_id.toLowerCase()));
      const done = new Set<string>();
      const todo: typeof events = [];
      for (const item of events) {
        const id = item.event.id.toLowerCase();
        // Once each, even when the batch holds an event twice.
        if (!unseen.delete(id)) continue;
        todo.push(item);
        done.add(id);
      }
      const emit = (e: DomainEvent) => void emitted.push(e);
      for (const [first, ...rest] of runsOf(todo)) {
        if (!first) continue;
        if (rest.length > 0 && first.typed.handleAll)
          await first.typed.handleAll([first.event, ...rest.map((item) => item.event)], tx, emit);
        else await first.typed.handle(first.event, tx, emit);
      }
      enqueueEvents(tx, schema, emitted);
      return done;
    });
    if (emitted.length > 0) deps.onEmitted();
    for (const { event } of events) {
      const fresh = applied.delete(event.id.toLowerCase());
      eventsConsumed.inc({ consumer: consumer.durable, outcome: fresh ? "applied" : "duplicate" });
      if (!fresh) logger.debug({ eventId: event.id, consumer: consumer.durable }, "duplicate event skipped");
    }
  };
  return bus.subscribe({
    durable: consumer.durable,
    subject: consumer.subject,
    handler: (message) => apply([message]),
    batchHandler: async (messages) => {
      for (let i = 0; i < messages.length; i += BATCH_LIMIT) await apply(messages.slice(i, i + BATCH_LIMIT));
    },
  });
}
