import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";

/** Numbers normalized lately: a call's number is read by several services in a row, and parsing costs ~60 µs. */
const recentlyNormalized = new Map<string, string | undefined>();
const RECENT_LIMIT = 5_000;

/**
 * E.164 form of a phone number, reading numbers without a country code as numbers of the
 * organization's default country. Returns undefined when the text is not a phone number.
 */
export function normalizePhone(text: string, defaultCountry: string): string | undefined {
  if (text.length > 64) return parsePhone(text, defaultCountry);
  const key = `${defaultCountry}\n${text}`;
  if (recentlyNormalized.has(key)) return recentlyNormalized.get(key);
  const normalized = parsePhone(text, defaultCountry);
  if (recentlyNormalized.size >= RECENT_LIMIT) recentlyNormalized.clear();
  recentlyNormalized.set(key, normalized);
  return normalized;
}

function parsePhone(text: string, defaultCountry: string): string | undefined {
  const trimmed = text.trim();
  if (!/\d/.test(trimmed)) return undefined;
  const parsed = parsePhoneNumberFromString(trimmed, defaultCountry.toUpperCase() as CountryCode);
  if (parsed?.isPossible()) return parsed.number;
  // Short or odd numbers (extensions, test lines) are kept as "+<digits>" so they still match.
  const digits = trimmed.replace(/\D/g, "");
  if (digits.length < 3 || digits.length > 15) return undefined;
  return `+${digits}`;
}

/** The digits of a phone-like search text, for matching stored numbers whatever their format. */
export function phoneDigits(text: string): string {
  return text.replace(/\D/g, "");
}

/** Whether a search text looks like a phone number rather than a name. */
export function looksLikePhone(text: string): boolean {
  return /^[\d\s()+.-]+$/.test(text.trim()) && phoneDigits(text).length >= 3;
}
