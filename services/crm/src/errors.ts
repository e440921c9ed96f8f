import { Code } from "@connectrpc/connect";
import { defineErrors } from "@voiceops/platform";

/** The conflicts and preconditions of the CRM service (409s), each named and written once. */
export const crmErrors = defineErrors("crm", {
  CONTACT_PHONE_TAKEN: {
    code: Code.AlreadyExists,
    message: (phone: string, holderId: string) => `A contact with phone number ${phone} already exists: ${holderId}`,
  },
  CONTACT_NOT_STORED: { code: Code.Aborted, message: "contact could not be stored" },
});
