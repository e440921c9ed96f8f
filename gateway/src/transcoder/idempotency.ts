import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import type { ConnectError } from "@connectrpc/connect";
import type { Request, Response } from "express";
import {
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENCY_RETRY_AFTER_SECONDS,
  idempotencyRefusalOf,
  isReplayed,
  parseIdempotencyKey,
  requestFingerprint,
  type FingerprintBody,
} from "@voiceops/platform";
import { sendDetail, sendValidation, refusal } from "../errors/index.js";
import type { Route } from "./routes.js";

// The gateway's part of idempotent requests (the record lives with the write, in the service:
// platform/src/idempotency): it checks the Idempotency-Key header, identifies the request
// (method, path with query, body), sends both with the call, and words the service's replays
// and refusals as HTTP.

/** The request header, and the response header of a replayed answer. */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "Idempotent-Replayed";

/** Verbs whose routes take the header. */
export const IDEMPOTENT_VERBS: ReadonlySet<string> = new Set(["post", "put", "patch", "delete"]);

const HEADER_LOC = ["header", IDEMPOTENCY_KEY_HEADER];

/**
 * The key a request sends, `undefined` without one (or on a route that takes none), or `false`
 * once a 422 has been answered for a malformed one.
 */
export function requestKey(route: Route, req: Request, res: Response): string | undefined | false {
  if (!IDEMPOTENT_VERBS.has(route.verb)) return undefined;
  const raw = req.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  const key = typeof raw === "string" ? parseIdempotencyKey(raw) : undefined;
  if (key !== undefined) return key;
  sendValidation(res, [
    {
      ...refusal(HEADER_LOC, "Idempotency-Key must be 1 to 255 visible ASCII characters, bare or in double quotes"),
      input: typeof raw === "string" ? raw : raw.join(", "),
    },
  ]);
  return false;
}

function mediaType(req: Request): string {
  return (req.headers["content-type"] ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

function hasBody(req: Request): boolean {
  return (
    req.headers["transfer-encoding"] !== undefined ||
    (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0")
  );
}

/** Digest of the bytes left in a request's body stream (one the JSON parser did not read). */
function unreadBodyDigest(req: Request): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    req.on("data", (chunk: Buffer) => hash.update(chunk));
    req.once("end", () => resolve(hash.digest("base64url")));
    req.once("error", reject);
  });
}

/**
 * The fingerprint of a request that is not an upload: method, path with query, and the body
 * (a JSON body as the parsed value, any other body by its bytes).
 */
export async function routeFingerprint(req: Request): Promise<string> {
  let body: FingerprintBody;
  if (!hasBody(req)) body = undefined;
  else if (mediaType(req) === "application/json" && req.body !== undefined) body = { json: req.body };
  else body = { digest: await unreadBodyDigest(req) };
  return requestFingerprint(req.method, req.originalUrl, body);
}

/** The fingerprint of an upload, from the digest its receiver made of the file and form. */
export function uploadFingerprint(req: Request, digest: string): string {
  return requestFingerprint(req.method, req.originalUrl, { digest });
}

/** A pass-through that hashes what flows through it (a raw upload on its way to the store). */
export function hashingStream(hash: Hash): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

/** Marks a replayed answer (success or kept error) with Idempotent-Replayed: true. */
export function markReplay(res: Response, header: Headers): void {
  if (isReplayed(header)) res.setHeader(REPLAYED_HEADER, "true");
}

/** Answers a call the key refused: 422 for another request, 409 while it runs or once lost. True when it did. */
export function sendKeyRefusal(res: Response, error: ConnectError): boolean {
  const refusalKind = idempotencyRefusalOf(error);
  if (refusalKind === undefined) return false;
  if (refusalKind === "mismatch") {
    sendValidation(res, [refusal(HEADER_LOC, IDEMPOTENCY_MESSAGES.mismatch)]);
    return true;
  }
  if (refusalKind === "in-flight") res.setHeader("Retry-After", String(IDEMPOTENCY_RETRY_AFTER_SECONDS));
  sendDetail(res, 409, IDEMPOTENCY_MESSAGES[refusalKind]);
  return true;
}
