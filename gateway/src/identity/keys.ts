import { createHash, randomBytes } from "node:crypto";

const KEY_PREFIX = "vo_";

/** A new API key: 256 random bits behind a readable prefix. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, prefix: key.slice(0, KEY_PREFIX.length + 8), hash: hashApiKey(key) };
}

/** Keys are stored and looked up by this hash only. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
