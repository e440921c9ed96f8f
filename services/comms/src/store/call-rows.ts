import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import { enumFromJson } from "@voiceops/platform";
import {
  CallChannelSchema,
  CallDetailSchema,
  CallSchema,
  type Activity,
  type Call,
  type CallChannel,
  type CallDetail,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { hasTranscription } from "../activities/metadata.js";
import type { ActivityRow } from "./activity-rows.js";

/** A call: its CALL_ENDED activity, with the call's channel and the contact's copied name. */
export interface CallRow extends ActivityRow {
  call_session_id: string;
  call_channel: string;
  contact_known: boolean;
  contact_name: string | null;
}

/** Text of a metadata value: strings as they are, numbers written out; anything else is absent. */
function text(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The recording of a call as stored: an object key of our store or a provider's URL. */
export const recordingOf = (metadata: JsonObject): string | undefined =>
  typeof metadata.recording === "string" && metadata.recording.trim() !== "" ? metadata.recording : undefined;

function callFields(row: CallRow) {
  const m = row.metadata ?? {};
  return {
    sessionId: row.call_session_id,
    activityId: row.id,
    contactId: row.contact_id ?? undefined,
    contact:
      row.contact_id && row.contact_known ? { id: row.contact_id, name: row.contact_name ?? undefined } : undefined,
    channel: (enumFromJson(CallChannelSchema, row.call_channel) ?? 0) as CallChannel,
    direction: text(m.direction),
    fromNumber: text(m.from_number),
    startTime: text(m.start_time),
    durationSeconds:
      typeof m.duration_seconds === "number" && Number.isFinite(m.duration_seconds) ? m.duration_seconds : undefined,
    outcome: text(m.outcome),
    disposition: text(m.disposition),
    hasTranscription: hasTranscription(m),
    hasRecording: recordingOf(m) !== undefined,
    occurredAt: timestampFromDate(row.occurred_at),
  };
}

export function toCall(row: CallRow): Call {
  return create(CallSchema, callFields(row));
}

export function toCallDetail(row: CallRow, activities: Activity[]): CallDetail {
  const m = row.metadata ?? {};
  const transcription = m.transcription;
  return create(CallDetailSchema, {
    ...callFields(row),
    transcription:
      transcription === undefined || transcription === null ? undefined : fromJson(ValueSchema, transcription),
    recording: recordingOf(m),
    activities,
  });
}
