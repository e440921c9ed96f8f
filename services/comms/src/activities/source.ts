import { timingSafeEqual } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { CommsSettings } from "../settings.js";

type ActivitySourceName = "api" | "internal";

/**
 * Who records an activity, from the x-internal-key the caller sent: the one place that checks
 * INTERNAL_API_KEY. No key: an API client. The right key: the voice runtime. Any other value,
 * or any value when no key is configured: 401.
 */
export function activitySource(settings: CommsSettings, key: string | undefined): ActivitySourceName {
  if (key === undefined) return "api";
  const expected = settings.internalApiKey;
  const given = Buffer.from(key);
  if (
    expected !== undefined &&
    given.length === Buffer.byteLength(expected) &&
    timingSafeEqual(given, Buffer.from(expected))
  )
    return "internal";
  throw new ConnectError("Invalid x-internal-key", Code.Unauthenticated);
}
