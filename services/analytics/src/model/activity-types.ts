/** Activity types of the contract, as the comms service spells them. */
export const ACTIVITY_TYPES = [
  "CALL_STARTED",
  "CALL_ENDED",
  "CALL_TRANSFERRED",
  "SMS_RECEIVED",
  "SMS_SENT",
  "WHATSAPP_RECEIVED",
  "WHATSAPP_SENT",
  "WEB_CHAT",
  "EMAIL_SENT",
  "LEAD_CREATED",
  "SERVICE_REQUEST_CREATED",
  "QUOTE_SENT",
  "APPOINTMENT_BOOKED",
  "DISPATCH_CREATED",
  "CALLBACK_REQUESTED",
  "NOTE",
  "LOOKUP",
] as const;

export const MESSAGE_TYPES = ["SMS_RECEIVED", "SMS_SENT", "WHATSAPP_RECEIVED", "WHATSAPP_SENT", "WEB_CHAT"] as const;
export const SMS_TYPES = ["SMS_RECEIVED", "SMS_SENT"] as const;
