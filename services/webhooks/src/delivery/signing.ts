import { createHmac, randomBytes } from "node:crypto";

// Standard Webhooks signing: "v1," + base64 HMAC-SHA256 over "<id>.<timestamp>.<body>", keyed by
// the secret's bytes (the base64 after "whsec_").

const PREFIX = "whsec_";

/** A new endpoint secret: "whsec_" + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
}

/** The webhook-signature header: one signature per valid secret, space-separated. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`)
    .join(" ");
}
