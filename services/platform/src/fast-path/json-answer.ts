import type { DescMessage } from "@bufbuild/protobuf";
import { writeField, writeMessage } from "../rest-json.js";

// A unary call whose caller only turns the answer into the REST API's JSON (the gateway's
// transcoder) can have the service write that JSON instead: the service skips the protobuf
// encoding, the caller the decoding and the JSON writing, and the message crosses the hop once
// encoded. The caller asks with a header naming the part of the answer it wants, as a route's
// response_body does ("*" for the whole message, else a field's proto name); a service that
// does not know the header answers in protobuf as usual, so the caller must take either. It is
// our own extension of the Connect protocol between our own components (FAST_PATH's
// `json-answers` part), so only our fast-path client asks, and only our fast-path server answers.

/** The header a call asks for its answer as REST JSON with: "*" or a field of the answer. */
export const JSON_ANSWER_HEADER = "voiceops-json-answer";
/** The content type of such an answer. */
export const JSON_ANSWER_TYPE = "application/vnd.voiceops.rest+json";

/** An answer that arrived as the REST API's JSON: the bytes to send the client as they are. */
export class JsonAnswer {
  constructor(readonly json: Uint8Array) {}
}

/** The JSON bytes of a call's answer when it came as a JsonAnswer, else undefined. */
export function jsonAnswerBytes(message: unknown): Uint8Array | undefined {
  return message instanceof JsonAnswer ? message.json : undefined;
}

type AnyMessage = Record<string, unknown>;
type Writer = (message: AnyMessage) => unknown;

const writers = new WeakMap<DescMessage, Map<string, Writer>>();

/**
 * How a service writes the answer a header asked for: the whole message ("*") or one field,
 * or undefined when the header names no field of the answer (the answer then goes as protobuf).
 */
export function jsonAnswerWriter(output: DescMessage, asked: string): Writer | undefined {
  let byPart = writers.get(output);
  if (byPart === undefined) {
    byPart = new Map();
    writers.set(output, byPart);
  }
  let writer = byPart.get(asked);
  if (writer === undefined) {
    if (asked === "*") {
      writer = (message) => writeMessage(output, message);
    } else {
      const field = output.fields.find((candidate) => candidate.name === asked);
      // Only the parts that exist are remembered: a caller cannot grow the map with made-up names.
      if (field === undefined) return undefined;
      writer = (message) => writeField(field, message);
    }
    byPart.set(asked, writer);
  }
  return writer;
}
