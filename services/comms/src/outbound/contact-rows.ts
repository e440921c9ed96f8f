import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { isEmail, isUuid, normalizePhone } from "@voiceops/platform";
import { IANAZone } from "luxon";
import type { NewCampaignContact } from "../store/campaigns.js";

/** One contact row as given (a CSV record, or an entry of the JSON list), before checks. */
export interface ContactRowInput {
  phoneNumber?: string;
  name?: string;
  email?: string;
  contactId?: string;
  timezone?: string;
  variables?: JsonObject;
}

type RowResult = { ok: true; contact: Omit<NewCampaignContact, "status"> } | { ok: false; reason: string };

const MAX = { name: 200, email: 320, variable: 2000 };

/** True when a text holds a NUL character, which PostgreSQL text and jsonb cannot store. */
export function hasNul(value: JsonValue | undefined): boolean {
  return value !== undefined && JSON.stringify(value).includes("\\u0000");
}

/** Checks and normalizes one row: the phone number to E.164 with the organization's country. */
export function checkContactRow(input: ContactRowInput, country: string): RowResult {
  const raw = input.phoneNumber?.trim() ?? "";
  if (raw === "") return { ok: false, reason: "phone_number is required" };
  const phone = hasNul(raw) ? undefined : normalizePhone(raw, country);
  if (!phone) return { ok: false, reason: `not a valid phone number: ${raw.slice(0, 64)}` };
  const name = input.name?.trim() || null;
  if (name && (name.length > MAX.name || hasNul(name)))
    return { ok: false, reason: `name must be at most ${MAX.name} characters of text` };
  const email = input.email?.trim() || null;
  if (email && (email.length > MAX.email || !isEmail(email) || hasNul(email)))
    return { ok: false, reason: "not a valid email address" };
  const contactId = input.contactId?.trim() || null;
  if (contactId && !isUuid(contactId)) return { ok: false, reason: "contact_id is not a valid UUID" };
  const timezone = input.timezone?.trim() || null;
  if (timezone && !IANAZone.isValidZone(timezone))
    return { ok: false, reason: "timezone is not a valid IANA time zone name" };
  const variables = input.variables ?? {};
  if (hasNul(variables)) return { ok: false, reason: "variables must not contain NUL characters" };
  if (JSON.stringify(variables).length > 20_000)
    return { ok: false, reason: "variables are too large (at most 20,000 characters as JSON)" };
  return {
    ok: true,
    contact: { phoneNumber: phone, name, email, contactId: contactId?.toLowerCase() ?? null, timezone, variables },
  };
}
