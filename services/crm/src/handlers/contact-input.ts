import { blankToNull, distinctLabels, phoneInput, type Violation } from "@voiceops/platform";
import type { ContactStatus } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { contactStatusText } from "../store/rows.js";
import type { ContactField, ContactValues } from "../store/contacts.js";

/** The writable contact fields, as both the create request and ContactFields carry them. */
export interface ContactInput {
  name?: string;
  phoneNumber?: string;
  email?: string;
  status?: ContactStatus;
  companyName?: string;
  address?: string;
  notes?: string;
  tags: string[];
}

/**
 * Column values for the named fields of a contact input. Phone numbers are normalized to
 * E.164 with the organization's country; a text that is no phone number is a violation.
 */
export function contactValues(input: ContactInput, fields: Iterable<ContactField>, country: string, prefix = ""): { values: ContactValues; violations: Violation[] } {
  const values: ContactValues = {};
  const violations: Violation[] = [];
  for (const field of fields) {
    switch (field) {
      case "name":
        values.name = blankToNull(input.name);
        break;
      case "phone_number": {
        const phone = phoneInput(input.phoneNumber, country, `${prefix}phone_number`, violations);
        if (phone !== undefined) values.phone_number = phone;
        break;
      }
      case "email":
        values.email = blankToNull(input.email);
        break;
      case "status":
        if (input.status !== undefined) values.status = contactStatusText(input.status);
        break;
      case "company_name":
        values.company_name = blankToNull(input.companyName);
        break;
      case "address":
        values.address = blankToNull(input.address);
        break;
      case "notes":
        values.notes = blankToNull(input.notes);
        break;
      case "tags":
        values.tags = distinctLabels(input.tags);
        break;
    }
  }
  return { values, violations };
}
