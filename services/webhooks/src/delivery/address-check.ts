import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isBlockedAddress, isLinkLocalOrUnspecified, isLocalHostname, literalAddress } from "@voiceops/platform";

// Which addresses deliveries may reach: never link-local or unspecified ones; loopback and
// private ones only when WEBHOOK_ALLOW_PRIVATE_URLS=true. Checked when an endpoint is saved and
// again on every connection (a name that later resolves elsewhere is not contacted).

export function isRefusedAddress(address: string, allowPrivate: boolean): boolean {
  return allowPrivate ? isLinkLocalOrUnspecified(address) : isBlockedAddress(address);
}

/** Why a URL cannot be an endpoint, or undefined when it can (its name is resolved at connection time). */
export function urlProblem(text: string, allowPrivate: boolean): string | undefined {
  if (!URL.canParse(text)) return "must be an absolute http or https URL";
  const url = new URL(text);
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.username || url.password) return "must not carry credentials";
  const literal = literalAddress(url.hostname);
  if (literal !== undefined && isRefusedAddress(literal, allowPrivate))
    return "must not point to a loopback, private, link-local or unspecified address";
  if (literal === undefined && !allowPrivate && isLocalHostname(url.hostname))
    return "must not point to a loopback, private, link-local or unspecified address";
  return undefined;
}

/** A dns.lookup that fails for names resolving to a refused address (the socket never connects). */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const allowed = addresses.filter((entry) => !isRefusedAddress(entry.address, allowPrivate));
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`address of ${hostname} is not allowed`), { code: "EADDRREFUSED" });
        return callback(refused, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      const first = allowed[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
