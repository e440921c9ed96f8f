import { createHash, randomBytes } from "node:crypto";

/** A new bearer secret: 256 random bits behind a readable prefix ("vo_", "pt_"). */
export function newSecret(prefix: string): { secret: string; hash: string } {
  const secret = `${prefix}${randomBytes(32).toString("base64url")}`;
  return { secret, hash: hashSecret(secret) };
}

/** Secrets are stored and looked up by this hash only. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
