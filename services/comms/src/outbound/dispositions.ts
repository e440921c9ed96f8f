/** What a call's end means: for the caller, and for whether a campaign calls again. */
export type DispositionOutcomeName = "positive" | "negative" | "neutral" | "retry" | "dnc";

interface DispositionInfo {
  code: string;
  label: string;
  outcome: DispositionOutcomeName;
  /** A final disposition ends a campaign contact; a non-final one is retried. */
  isFinal: boolean;
}

/** The built-in dispositions, in the order the API lists them. */
export const DISPOSITIONS: readonly DispositionInfo[] = [
  { code: "appointment_booked", label: "Appointment booked", outcome: "positive", isFinal: true },
  { code: "service_request_created", label: "Service request created", outcome: "positive", isFinal: true },
  { code: "callback_requested", label: "Callback requested", outcome: "neutral", isFinal: true },
  { code: "transferred", label: "Transferred to a person", outcome: "positive", isFinal: true },
  { code: "not_interested", label: "Not interested", outcome: "negative", isFinal: true },
  { code: "do_not_call", label: "Do not call", outcome: "dnc", isFinal: true },
  { code: "wrong_number", label: "Wrong number", outcome: "negative", isFinal: true },
  { code: "voicemail", label: "Voicemail", outcome: "retry", isFinal: false },
  { code: "no_answer", label: "No answer", outcome: "retry", isFinal: false },
  { code: "busy", label: "Busy", outcome: "retry", isFinal: false },
  { code: "failed", label: "Call failed", outcome: "retry", isFinal: false },
];

const BY_CODE = new Map(DISPOSITIONS.map((d) => [d.code, d]));

/** The disposition of a reported result; an unknown or missing code counts as a failed call. */
export function dispositionOf(code: string | undefined): DispositionInfo {
  return BY_CODE.get((code ?? "").trim().toLowerCase()) ?? (BY_CODE.get("failed") as DispositionInfo);
}
