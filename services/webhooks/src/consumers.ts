import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  type ReceivedEvent,
  type StreamConsumer,
  type TypedHandler,
  WEBHOOK_EVENT_SOURCES,
  type WebhookEventSource,
  writeMessage,
} from "@voiceops/platform";
import type { DeliveryStore, RecordedEvent } from "./store/deliveries.js";

/** The streams whose events become webhooks: one durable consumer each, shared by every replica. */
const STREAMS = ["crm", "jobs", "fieldops", "comms"] as const;

/** The body every delivery of an event posts: {type, timestamp, data}, data as the REST API writes it. */
export function eventBody(type: string, at: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

function dataOf(source: WebhookEventSource, payload: MessageShape<DescMessage>): unknown {
  const field = source.schema.fields.find((candidate) => candidate.name === source.field);
  if (!field) throw new Error(`${source.subject} has no field ${source.field}`);
  const value = (payload as Record<string, unknown>)[field.localName];
  if (field.fieldKind === "message") return writeMessage(field.message, value as Record<string, unknown>);
  return { id: value };
}

/**
 * Consumers of every service's stream. Each run of events is recorded with its deliveries in the
 * consumer's transaction (the one that also records the event ids as processed), so an event is
 * turned into deliveries exactly once; events of all types of a stream share one batch.
 */
export function webhookConsumers(deliveries: DeliveryStore, now: () => Date, onRecorded: () => void): StreamConsumer[] {
  const sourceBySubject = new Map(WEBHOOK_EVENT_SOURCES.map((source) => [source.subject, source]));
  const recordAll = async (
    events: ReceivedEvent<DescMessage>[],
    tx: Parameters<TypedHandler<DescMessage>["handle"]>[1],
  ) => {
    const recorded: RecordedEvent[] = [];
    for (const event of events) {
      const source = sourceBySubject.get(event.type);
      if (!source) continue;
      recorded.push({
        id: event.id,
        orgId: event.orgId,
        type: source.type,
        body: eventBody(source.type, event.occurredAt, dataOf(source, event.payload)),
        at: event.occurredAt,
        // Each event's deliveries continue its own trace, not that of the batch it came in.
        traceparent: event.traceparent,
      });
    }
    if ((await deliveries.record(tx, recorded, now())) > 0) onRecorded();
  };
  return STREAMS.map((stream) => {
    const handlers: Record<string, TypedHandler<DescMessage>> = {};
    for (const source of WEBHOOK_EVENT_SOURCES.filter((entry) => entry.subject.startsWith(`${stream}.`))) {
      handlers[source.subject] = {
        schema: source.schema,
        handle: (event, tx) => recordAll([event], tx),
        handleAll: recordAll,
      };
    }
    return { durable: `webhooks-${stream}`, subject: `${stream}.>`, handlers };
  });
}
