import { Code } from "@connectrpc/connect";
import { defineErrors } from "@voiceops/platform";

/** The conflicts and preconditions of the comms service (409s), each named and written once. */
export const commsErrors = defineErrors("comms", {
  PHONE_ON_DNC_LIST: { code: Code.FailedPrecondition, message: "The phone number is on the do-not-call list" },
  CAMPAIGN_CALL_NOT_CANCELLABLE: {
    code: Code.FailedPrecondition,
    message: "A campaign's call is withdrawn by pausing or cancelling the campaign",
  },
  CALL_REQUEST_NOT_CANCELLABLE: {
    code: Code.FailedPrecondition,
    message: (status: string) => `A ${status} call request cannot be cancelled`,
  },
  CALL_REQUEST_NOT_DIALING: {
    code: Code.FailedPrecondition,
    message: "The call request is not dialing: its lease cannot be renewed",
  },
  CAMPAIGN_STATUS_CONFLICT: {
    code: Code.FailedPrecondition,
    message: (status: string, action: string) => `A ${status} campaign cannot be ${action}`,
  },
  CAMPAIGN_HAS_NO_CONTACTS: { code: Code.FailedPrecondition, message: "The campaign has no contacts to call" },
  CAMPAIGN_CLOSED_TO_CONTACTS: {
    code: Code.FailedPrecondition,
    message: (status: string) => `Contacts cannot be added to a ${status} campaign`,
  },
  CONVERSATION_ENDED: { code: Code.FailedPrecondition, message: "Conversation has ended" },
  CONVERSATION_CHANGED_CONCURRENTLY: { code: Code.Aborted, message: "conversation changed concurrently, retry" },
});
