import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import { derivedKey, IdempotencyMetadata } from "../idempotency/keys.js";
import { decodeBusinessHours, encodeBusinessHours, type WeeklyHours } from "../business-hours.js";

export type Role = "owner" | "admin" | "member";
export const ROLES: readonly Role[] = ["owner", "admin", "member"];

/** Who is calling: set by the gateway after it checks the API key, forwarded between services. */
export interface OrgContext {
  orgId: string;
  /** IANA time zone of the organization, for "today" and day buckets. */
  timezone: string;
  /** ISO 3166 alpha-2 country used to normalize phone numbers written without a country code. */
  country: string;
  /** Opening hours in `timezone` (the default week when the caller sent none). */
  businessHours: WeeklyHours;
  role: Role;
  requestId: string;
  /**
   * The idempotency key the call runs under (set by the idempotency interceptor): the calls it
   * makes to other services carry keys derived from it, one per call in the order it makes them.
   */
  idempotency?: { key: string; calls: number };
}

/** Metadata (HTTP/2 header) names of the org context and the internal token. */
export const MetadataKeys = {
  orgId: "x-org-id",
  timezone: "x-org-timezone",
  country: "x-org-country",
  businessHours: "x-org-business-hours",
  role: "x-role",
  requestId: "x-request-id",
  internalToken: "x-internal-token",
} as const;

export const orgContextKey = createContextKey<OrgContext | undefined>(undefined, {
  description: "organization of the call",
});

export function orgContextFromHeaders(headers: Headers): OrgContext | undefined {
  const orgId = headers.get(MetadataKeys.orgId);
  if (!orgId) return undefined;
  const role = headers.get(MetadataKeys.role) as Role | null;
  return {
    orgId,
    timezone: headers.get(MetadataKeys.timezone) || "UTC",
    country: headers.get(MetadataKeys.country) || "US",
    businessHours: decodeBusinessHours(headers.get(MetadataKeys.businessHours)),
    role: role && ROLES.includes(role) ? role : "member",
    requestId: headers.get(MetadataKeys.requestId) ?? "",
  };
}

/** Headers that carry an org context (and the internal token) on an outgoing call. */
export function orgHeaders(org: OrgContext, internalToken: string): Record<string, string> {
  const headers: Record<string, string> = {
    [MetadataKeys.orgId]: org.orgId,
    [MetadataKeys.timezone]: org.timezone,
    [MetadataKeys.country]: org.country,
    [MetadataKeys.businessHours]: encodeBusinessHours(org.businessHours),
    [MetadataKeys.role]: org.role,
    [MetadataKeys.requestId]: org.requestId,
    [MetadataKeys.internalToken]: internalToken,
  };
  // A retry of the call makes the same peer calls in the same order, so each finds its own key
  // again and is answered from it instead of running twice.
  if (org.idempotency) headers[IdempotencyMetadata.key] = derivedKey(org.idempotency.key, ++org.idempotency.calls);
  return headers;
}

/**
 * Messages of the UNAUTHENTICATED errors a service answers when a component (the gateway, a
 * peer) calls it without valid credentials: a fault of the system, not of the API client. Any
 * other UNAUTHENTICATED (a wrong x-internal-key of the voice runtime) is the client's: 401.
 */
export const COMPONENT_AUTH_FAILURES = {
  internalToken: "invalid internal token",
  organization: "missing organization context",
} as const;

/** Whether an UNAUTHENTICATED error is a component's credentials failing (see COMPONENT_AUTH_FAILURES). */
export function isComponentAuthFailure(message: string): boolean {
  return message === COMPONENT_AUTH_FAILURES.internalToken || message === COMPONENT_AUTH_FAILURES.organization;
}

/** The caller's organization; every handler of an org-scoped RPC starts here. */
export function orgOf(context: HandlerContext): OrgContext {
  const org = context.values.get(orgContextKey);
  if (!org) throw new ConnectError(COMPONENT_AUTH_FAILURES.organization, Code.Unauthenticated);
  return org;
}
