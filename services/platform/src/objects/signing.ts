import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * HMAC signatures of the file store's download URLs: `expires` (Unix seconds) and the key are
 * signed together, so neither can be changed without the secret.
 */
export class UrlSigner {
  private readonly secret: Buffer;

  constructor(secret: string) {
    this.secret = createHmac("sha256", "voiceops-object-urls").update(secret).digest();
  }

  sign(key: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${expires}\n${key}`).digest("base64url");
  }

  /** Whether `signature` is this signer's for the key and expiry, and the expiry is after `now`. */
  verify(key: string, expires: number, signature: string, now: Date): "ok" | "expired" | "invalid" {
    const expected = Buffer.from(this.sign(key, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
    return expires * 1000 > now.getTime() ? "ok" : "expired";
  }
}
