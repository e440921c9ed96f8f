import { normalizePhone } from "../phone.js";
import { badFormat, type Violation } from "./violations.js";

/**
 * An optional phone field of a write, as stored: null when blank, E.164 when it reads as a
 * phone number of the given country; otherwise undefined, with a violation pushed for `path`.
 */
export function phoneInput(
  text: string | undefined,
  country: string,
  path: string,
  violations: Violation[],
): string | null | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return null;
  const e164 = normalizePhone(trimmed, country);
  if (!e164) violations.push(badFormat(path, "phone", trimmed));
  return e164;
}
