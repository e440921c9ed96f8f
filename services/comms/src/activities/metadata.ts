import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { normalizePhone, belowMin, notAllowed, wrongType, type Violation } from "@voiceops/platform";

// What the activity log reads out of an activity's free-form metadata: the columns of a call
// (CALL_ENDED) and the customer's number of a message.

const MESSAGE_DIRECTION: Record<string, "inbound" | "outbound" | "both"> = {
  SMS_RECEIVED: "inbound",
  WHATSAPP_RECEIVED: "inbound",
  SMS_SENT: "outbound",
  WHATSAPP_SENT: "outbound",
  WEB_CHAT: "both",
};

const text = (value: JsonValue | undefined): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/** The metadata rules of a CALL_ENDED activity, as violations of the request's metadata. */
export function callMetadataViolations(metadata: JsonObject): Violation[] {
  const out: Violation[] = [];
  const oneOf = (key: string, allowed: string[]) => {
    const value = metadata[key];
    if (value !== undefined && value !== null && (typeof value !== "string" || !allowed.includes(value))) {
      out.push(notAllowed(`metadata.${key}`, value, allowed));
    }
  };
  oneOf("channel", ["phone", "web"]);
  oneOf("direction", ["inbound", "outbound"]);
  const duration = metadata.duration_seconds;
  if (duration !== undefined && duration !== null) {
    if (typeof duration !== "number" || !Number.isFinite(duration))
      out.push(wrongType("metadata.duration_seconds", "number", duration));
    else if (duration < 0) out.push(belowMin("metadata.duration_seconds", duration, 0));
  }
  const transcription = metadata.transcription;
  if (
    transcription !== undefined &&
    transcription !== null &&
    typeof transcription !== "string" &&
    !Array.isArray(transcription)
  ) {
    out.push(wrongType("metadata.transcription", "string_or_list", transcription));
  }
  const recording = metadata.recording;
  if (recording !== undefined && recording !== null && typeof recording !== "string") {
    out.push(wrongType("metadata.recording", "string", recording));
  }
  return out;
}

/** Channel of a call: web, or phone (also for rows written before web calls, without one). */
export const callChannel = (metadata: JsonObject): "phone" | "web" => (metadata.channel === "web" ? "web" : "phone");

export const callDuration = (metadata: JsonObject): number | null =>
  typeof metadata.duration_seconds === "number" && Number.isFinite(metadata.duration_seconds)
    ? metadata.duration_seconds
    : null;

export function hasTranscription(metadata: JsonObject): boolean {
  const value = metadata.transcription;
  return (typeof value === "string" && value.trim() !== "") || (Array.isArray(value) && value.length > 0);
}

/**
 * The customer's side of a message activity: metadata.phone_number, else the sender of an
 * inbound or the recipient of an outbound message, else the contact's number; for web chat the
 * visitor id. Phone numbers are stored in E.164 so that a search ignores formatting.
 */
export function customerPhone(
  type: string,
  metadata: JsonObject,
  contactPhone: string | null,
  country: string,
): string | null {
  const direction = MESSAGE_DIRECTION[type];
  if (!direction) return null;
  if (direction === "both") return text(metadata.visitor_id) ?? null;
  const raw =
    text(metadata.phone_number) ??
    (direction === "inbound" ? text(metadata.from_number) : text(metadata.to_number)) ??
    contactPhone ??
    undefined;
  if (raw === undefined) return null;
  return normalizePhone(raw, country) ?? raw;
}
