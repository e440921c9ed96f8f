import { fromBinary } from "@bufbuild/protobuf";
import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { EventEnvelopeSchema } from "@voiceops/proto/voiceops/events/v1/event_envelope_pb";
import type { BusMessage, DurableSubscription, EventBus } from "../bus/bus.js";
import { activeTraceparent, contextFromTraceparent, tracer } from "./state.js";

/** The traceparent the event's emitter stored in its envelope; empty for none or bytes that are no envelope. */
function emitterTraceparent(message: BusMessage): string {
  try {
    return fromBinary(EventEnvelopeSchema, message.data).traceparent;
  } catch {
    return "";
  }
}

function messagingAttributes(bus: EventBus, message: BusMessage, operation: "publish" | "process") {
  return {
    "messaging.system": bus.kind === "nats" ? "nats" : "voiceops_memory",
    "messaging.destination.name": message.subject,
    "messaging.message.id": message.id,
    "messaging.operation.type": operation,
  };
}

function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** A producer span, child of the emitter's context, whose context the message carries on. */
function startPublish(bus: EventBus, message: BusMessage): { span: Span; message: BusMessage } {
  const parent = contextFromTraceparent(emitterTraceparent(message));
  const span = tracer().startSpan(
    `publish ${message.subject}`,
    { kind: SpanKind.PRODUCER, attributes: messagingAttributes(bus, message, "publish") },
    parent,
  );
  return { span, message: { ...message, traceparent: activeTraceparent(trace.setSpan(parent, span)) } };
}

/** A consumer span, child of the publish (the message's traceparent) or else of the emitter. */
function startProcess(bus: EventBus, message: BusMessage): Span {
  const parent = contextFromTraceparent(message.traceparent || emitterTraceparent(message));
  return tracer().startSpan(
    `process ${message.subject}`,
    { kind: SpanKind.CONSUMER, attributes: messagingAttributes(bus, message, "process") },
    parent,
  );
}

/** The message as its handler gets it: carrying its consumer span's context. */
function inSpan(message: BusMessage, span: Span): BusMessage {
  return { ...message, traceparent: activeTraceparent(trace.setSpan(context.active(), span)) };
}

async function traced<T>(spans: Span[], run: () => Promise<T>): Promise<T> {
  const [first] = spans;
  try {
    const result = await (first ? context.with(trace.setSpan(context.active(), first), run) : run());
    for (const span of spans) endSpan(span);
    return result;
  } catch (error) {
    for (const span of spans) endSpan(span, error);
    throw error;
  }
}

/**
 * A bus whose publishes are producer spans and whose deliveries are consumer spans, each in the
 * trace of the request that emitted the event (its envelope's traceparent); the consumer's work
 * (its SQL) runs in the consumer span, a batch's in its first message's, and each message handed
 * to a handler carries its own span's context (work done for one event of a batch, such as a
 * webhook delivery, continues that event's trace).
 */
export function tracedBus(bus: EventBus): EventBus {
  const wrapped: EventBus = {
    get kind() {
      return bus.kind;
    },
    async publish(message) {
      const publish = startPublish(bus, message);
      await traced([publish.span], () => bus.publish(publish.message));
    },
    subscribe(subscription: DurableSubscription) {
      const { handler, batchHandler } = subscription;
      return bus.subscribe({
        ...subscription,
        handler: (message) => {
          const span = startProcess(bus, message);
          return traced([span], () => handler(inSpan(message, span)));
        },
        batchHandler:
          batchHandler &&
          ((messages) => {
            const spans = messages.map((message) => startProcess(bus, message));
            return traced(spans, () => batchHandler(messages.map((message, i) => inSpan(message, spans[i] as Span))));
          }),
      });
    },
    broadcast: (subject, data) => bus.broadcast(subject, data),
    onBroadcast: (subject, handler) => bus.onBroadcast(subject, handler),
    healthy: () => bus.healthy(),
    close: () => bus.close(),
  };
  if (bus.publishAll) {
    const publishAll = bus.publishAll.bind(bus);
    wrapped.publishAll = async (messages) => {
      const publishes = messages.map((message) => startPublish(bus, message));
      await traced(
        publishes.map((publish) => publish.span),
        () => publishAll(publishes.map((publish) => publish.message)),
      );
    };
  }
  return wrapped;
}
