import { createHash } from "node:crypto";
import { ConnectError } from "@connectrpc/connect";

// What travels between a caller (the REST gateway, the MCP server, a service calling a peer)
// and the service that keeps an idempotency record: the client's key, the fingerprint of the
// request it was sent with, and, on the way back, whether the answer is a replay or a refusal.
// The record itself lives with the write (see records.ts and interceptor.ts).

/** The longest key a client may send (IETF httpapi draft, Stripe). */
const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Call metadata of an idempotent call. */
export const IdempotencyMetadata = {
  /** The key, as the client meant it (the quoted form unwrapped); derived keys for peer calls. */
  key: "x-idempotency-key",
  /** What identifies the request the key was first used with (requestFingerprint, toolCallFingerprint). */
  fingerprint: "x-idempotency-fingerprint",
  /** On a response (header) or an error (metadata): "true" when it is a kept answer replayed. */
  replayed: "x-idempotent-replayed",
  /** On an error: why the key refused the call (IdempotencyRefusal), when it did. */
  refusal: "x-idempotency-refusal",
} as const;

/**
 * Why a keyed call was refused without running: the key holds another request ("mismatch",
 * 422), its first request is still running ("in-flight", 409 with Retry-After: 1), or its first
 * request committed its change but its answer was lost with the process that ran it ("lost",
 * 409; it never runs again).
 */
export type IdempotencyRefusal = "mismatch" | "in-flight" | "lost";

export const IDEMPOTENCY_MESSAGES: Record<IdempotencyRefusal, string> = {
  mismatch: "This Idempotency-Key was already used for a different request (another method, path or body)",
  "in-flight": "A request with this Idempotency-Key is still being processed",
  lost: "A request with this Idempotency-Key was carried out, but its response could not be kept; it will not run again",
};

/** Seconds a client waits before retrying an in-flight key (Retry-After). */
export const IDEMPOTENCY_RETRY_AFTER_SECONDS = 1;

/**
 * The key of an `Idempotency-Key` header value: 1..255 visible ASCII characters, bare (`abc`)
 * or in the draft's quoted form (`"abc"`), which is the same key. Undefined when invalid.
 */
export function parseIdempotencyKey(value: string): string | undefined {
  let key = value;
  if (key.length >= 2 && key.charCodeAt(0) === 34 && key.charCodeAt(key.length - 1) === 34) key = key.slice(1, -1);
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return undefined;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    // Visible ASCII (VCHAR) only: no space, tab, control or non-ASCII character.
    if (code < 0x21 || code > 0x7e) return undefined;
  }
  return key;
}

/** JSON text of a value with every object's keys sorted: two JSON texts of one value give one text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (record[key] === undefined) continue;
    if (text.length > 1) text += ",";
    text += `${JSON.stringify(key)}:${canonicalJson(record[key])}`;
  }
  return `${text}}`;
}

/** How a request's body is compared: as a JSON value, or as the digest of its bytes (or form parts). */
export type FingerprintBody = { json: unknown } | { digest: string } | undefined;

/**
 * The fingerprint of an HTTP request: its method, its path with the query, and its body (JSON
 * bodies as values: key order and whitespace do not matter; other bodies by a digest of their
 * bytes, or of an upload form's parts).
 */
export function requestFingerprint(method: string, target: string, body: FingerprintBody): string {
  const hash = createHash("sha256").update(`http\n${method.toUpperCase()}\n${target}\n`);
  if (body === undefined) hash.update("none");
  else if ("json" in body) hash.update(`json\n${canonicalJson(body.json)}`);
  else hash.update(`bytes\n${body.digest}`);
  return hash.digest("base64url");
}

/** The fingerprint of an MCP tool call: the tool's name and its arguments as a JSON value. */
export function toolCallFingerprint(tool: string, args: unknown): string {
  return createHash("sha256")
    .update(`tool\n${tool}\n${canonicalJson(args ?? {})}`)
    .digest("base64url");
}

/**
 * The metadata that makes an RPC call idempotent under `key`: send it with the call (next to
 * the org context). A caller whose one operation makes several writing calls gives each its
 * own `step` (0, 1, 2... in the order it makes them), so each call has a key of its own.
 */
export function idempotencyMetadata(key: string, fingerprint: string, step = 0): Record<string, string> {
  return { [IdempotencyMetadata.key]: derivedKey(key, step), [IdempotencyMetadata.fingerprint]: fingerprint };
}

/**
 * The key of the `step`th writing call made under `key`. A space never occurs in a client's
 * key (visible ASCII only), so a derived key never equals one a client could send.
 */
export function derivedKey(key: string, step: number): string {
  return step === 0 ? key : `${key} ${step}`;
}

/** Whether a response's header (or an error's metadata) says it is a kept answer replayed. */
export function isReplayed(header: Headers): boolean {
  return header.get(IdempotencyMetadata.replayed) === "true";
}

/** Why an idempotency key refused a call, or undefined for any other error. */
export function idempotencyRefusalOf(error: unknown): IdempotencyRefusal | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const refusal = error.metadata.get(IdempotencyMetadata.refusal);
  return refusal === "mismatch" || refusal === "in-flight" || refusal === "lost" ? refusal : undefined;
}
