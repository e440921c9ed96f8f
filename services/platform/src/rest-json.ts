import { toJson, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { StructSchema, TimestampSchema, ValueSchema, timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { enumToJson } from "./proto-options.js";
import { isoInstant } from "./time.js";

// A message as the REST API writes it: proto (snake_case) field names, enums in their short
// spelling, int64 as JSON numbers, unset optional fields as null. The gateway writes responses
// with it and the webhooks service the payloads of events, so both are the same JSON.

type AnyMessage = Record<string, unknown>;

function writeSingular(field: DescField, value: unknown): unknown {
  const kind =
    field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (kind === "enum") return field.enum ? enumToJson(field.enum, value as number) : null;
  if (kind === "message") return field.message ? writeMessage(field.message, value as AnyMessage) : null;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  return value;
}

/** Writes a message as the API's JSON: every field present, unset ones as null. */
export function writeMessage(desc: DescMessage, message: AnyMessage | undefined): unknown {
  if (message === undefined || message === null) return null;
  if (desc.typeName === TimestampSchema.typeName) return isoInstant(timestampMs(message as unknown as Timestamp));
  if (desc.typeName === StructSchema.typeName || desc.typeName === ValueSchema.typeName) {
    // A Struct field already holds plain JSON; a Struct inside a Value is a message.
    return "$typeName" in message ? toJson(desc, message as never) : message;
  }
  const out: Record<string, unknown> = {};
  for (const field of desc.fields) {
    const value = message[field.localName];
    if (field.fieldKind === "list") {
      out[field.name] = (value as unknown[]).map((item) => writeSingular(field, item));
    } else if (field.fieldKind === "map") {
      out[field.name] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, writeSingular(field, v)]),
      );
    } else if (value === undefined || value === null) {
      out[field.name] = null;
    } else {
      out[field.name] = writeSingular(field, value);
    }
  }
  return out;
}

/** Writes the value of one field of a message (for response_body). */
export function writeField(field: DescField, message: AnyMessage): unknown {
  const value = message[field.localName];
  if (field.fieldKind === "list") return (value as unknown[]).map((item) => writeSingular(field, item));
  if (value === undefined || value === null) return null;
  return writeSingular(field, value);
}
