import { blankToNull, normalizePhone, violation, type Violation } from "@voiceops/platform";
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
        const raw = blankToNull(input.phoneNumber);
        if (raw === null) {
          values.phone_number = null;
        } else {
          const e164 = normalizePhone(raw, country);
          if (e164) values.phone_number = e164;
          else violations.push(violation(`${prefix}phone_number`, "value_error", "Value error, not a valid phone number", raw));
        }
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
        values.tags = [...new Set(input.tags.map((tag) => tag.trim()).filter((tag) => tag !== ""))];
        break;
    }
  }
  return { values, violations };
}
