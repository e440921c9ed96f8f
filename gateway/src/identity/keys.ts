import { hashSecret, newSecret } from "@voiceops/platform";

const KEY_PREFIX = "vo_";

/** A new API key: 256 random bits behind a readable prefix. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const { secret, hash } = newSecret(KEY_PREFIX);
  return { key: secret, prefix: secret.slice(0, KEY_PREFIX.length + 8), hash };
}

/** Keys are stored and looked up by this hash only. */
export const hashApiKey = hashSecret;
