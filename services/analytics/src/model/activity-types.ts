import { enumJsonValues } from "@voiceops/platform";
import { ActivityTypeSchema } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";

/** Activity types of the contract, as the comms service spells them. */
export const ACTIVITY_TYPES = enumJsonValues(ActivityTypeSchema);

export const MESSAGE_TYPES = ["SMS_RECEIVED", "SMS_SENT", "WHATSAPP_RECEIVED", "WHATSAPP_SENT", "WEB_CHAT"] as const;
export const SMS_TYPES = ["SMS_RECEIVED", "SMS_SENT"] as const;
