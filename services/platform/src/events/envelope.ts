import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { type EventEnvelope, EventEnvelopeSchema } from "@voiceops/proto/voiceops/events/v1/event_envelope_pb";
import { newId } from "../ids.js";
import { activeTraceparent } from "../tracing/state.js";

export interface DomainEvent<Desc extends DescMessage = DescMessage> {
  id: string;
  orgId: string;
  /** Subject and type, e.g. "crm.contact.created". */
  type: string;
  occurredAt: Date;
  schema: Desc;
  payload: MessageShape<Desc>;
}

export function newEvent<Desc extends DescMessage>(
  orgId: string,
  type: string,
  schema: Desc,
  payload: MessageShape<Desc>,
): DomainEvent<Desc> {
  return { id: newId(), orgId, type, occurredAt: new Date(), schema, payload };
}

export function encodeEvent(event: DomainEvent): Uint8Array {
  return toBinary(
    EventEnvelopeSchema,
    create(EventEnvelopeSchema, {
      id: event.id,
      orgId: event.orgId,
      type: event.type,
      occurredAt: timestampFromDate(event.occurredAt),
      payload: toBinary(event.schema, event.payload),
      traceparent: activeTraceparent(),
    }),
  );
}

export interface ReceivedEvent<Desc extends DescMessage> {
  id: string;
  orgId: string;
  type: string;
  occurredAt: Date;
  payload: MessageShape<Desc>;
  /** The trace context its processing continues (its consumer span's); empty when tracing is off. */
  traceparent: string;
}

export function decodeEvent<Desc extends DescMessage>(data: Uint8Array, schema: Desc): ReceivedEvent<Desc> {
  return eventOf(fromBinary(EventEnvelopeSchema, data), schema);
}

/** The event an envelope (already decoded, e.g. to read its type) carries. */
export function eventOf<Desc extends DescMessage>(
  envelope: EventEnvelope,
  schema: Desc,
  traceparent = "",
): ReceivedEvent<Desc> {
  return {
    id: envelope.id,
    orgId: envelope.orgId,
    type: envelope.type,
    occurredAt: envelope.occurredAt ? timestampDate(envelope.occurredAt) : new Date(0),
    payload: fromBinary(schema, envelope.payload),
    traceparent,
  };
}
