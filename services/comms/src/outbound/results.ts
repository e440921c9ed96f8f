import { isUuid, type EventConsumer } from "@voiceops/platform";
import { ActivityCreatedSchema } from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import { ActivityType } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import type { OutboundEngine } from "./engine.js";

/**
 * The voice runtime reports how an outbound call ended as a CALL_ENDED activity whose metadata
 * carries call_request_id and disposition; this durable consumer of comms.activity.created
 * records it on the call request and its campaign contact (once per event: the platform keeps
 * the event ids it applied, and a request that already ended is left alone).
 */
export function callResultConsumer(
  engine: OutboundEngine,
  onRecorded: () => void,
): EventConsumer<typeof ActivityCreatedSchema> {
  return {
    durable: "comms-outbound-call-results",
    subject: "comms.activity.created",
    schema: ActivityCreatedSchema,
    async handle(event, tx, emit) {
      const activity = event.payload.activity;
      if (!activity || activity.activityType !== ActivityType.CALL_ENDED) return;
      const metadata = activity.metadata ?? {};
      const callRequestId = metadata.call_request_id;
      if (typeof callRequestId !== "string" || !isUuid(callRequestId)) return;
      const disposition = typeof metadata.disposition === "string" ? metadata.disposition : undefined;
      const recorded = await engine.recordResult(tx, emit, event.orgId, {
        callRequestId: callRequestId.toLowerCase(),
        disposition,
        sessionId: activity.sessionId,
      });
      // The scheduler may now fill the freed slot (or complete the campaign) once this commits.
      if (recorded) setTimeout(onRecorded, 50).unref();
    },
  };
}
