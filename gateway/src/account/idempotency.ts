import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import {
  claimKey,
  freeKey,
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENCY_RETRY_AFTER_SECONDS,
  keepAnswer,
  parseIdempotencyKey,
  type Database,
} from "@voiceops/platform";
import { sendDetail, sendJson, sendValidation, refusal } from "../errors/index.js";
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, routeFingerprint } from "../transcoder/idempotency.js";

// Idempotency-Key on the gateway's own account routes (API keys, users, settings), with the
// same record table and semantics as the services' routes: the key is claimed before the
// handler runs and its answer kept after (the HTTP status as the answer's code). Unlike a
// service's write, the change and the kept answer are two statements: a gateway that dies
// between them leaves the key to be taken over once its lease runs out.

/** What an account route answers: the status and JSON body (none for 204). */
export interface Answer {
  status: number;
  body?: unknown;
}

const LEASE_SECONDS = 30;
const HEADER_LOC = ["header", IDEMPOTENCY_KEY_HEADER];

function send(res: Response, answer: Answer): void {
  if (answer.status === 204 || answer.body === undefined) res.status(answer.status).end();
  else sendJson(res, answer.status, answer.body);
}

/** Kept unless nothing ran or it may be retried: 401, 403, 422, 429 and 5xx free the key. */
function isKept(status: number): boolean {
  return !(status === 401 || status === 403 || status === 422 || status === 429 || status >= 500);
}

/** Runs an authenticated account route's handler under the request's Idempotency-Key, if any. */
export function keyed(db: Database, ttlSeconds: number, handler: (req: Request) => Promise<Answer>) {
  return (req: Request, res: Response, next: NextFunction) => {
    run().catch(next);
    async function run(): Promise<void> {
      const raw = req.headers[IDEMPOTENCY_KEY_HEADER];
      if (raw === undefined || req.method === "GET") return send(res, await handler(req));
      const key = typeof raw === "string" ? parseIdempotencyKey(raw) : undefined;
      if (key === undefined)
        return sendValidation(res, [
          refusal(HEADER_LOC, "Idempotency-Key must be 1 to 255 visible ASCII characters, bare or in double quotes"),
        ]);
      const orgId = req.principal?.orgId;
      if (!orgId) throw new Error("keyed routes need an authenticated request");
      const fingerprint = await routeFingerprint(req);
      const claim = { orgId, key, attempt: randomUUID() };
      const existing = await claimKey(db, { ...claim, fingerprint, leaseSeconds: LEASE_SECONDS, ttlSeconds });
      if (existing) {
        if (existing.fingerprint !== fingerprint)
          return sendValidation(res, [refusal(HEADER_LOC, IDEMPOTENCY_MESSAGES.mismatch)]);
        if (existing.committed && existing.answerCode !== null && existing.answer) {
          res.setHeader(REPLAYED_HEADER, "true");
          const text = Buffer.from(existing.answer).toString("utf8");
          return send(res, { status: existing.answerCode, body: text === "" ? undefined : JSON.parse(text) });
        }
        if (existing.running) res.setHeader("Retry-After", String(IDEMPOTENCY_RETRY_AFTER_SECONDS));
        return sendDetail(res, 409, existing.running ? IDEMPOTENCY_MESSAGES["in-flight"] : IDEMPOTENCY_MESSAGES.lost);
      }
      let answer: Answer;
      try {
        answer = await handler(req);
      } catch (error) {
        await freeKey(db, claim);
        throw error;
      }
      if (isKept(answer.status))
        await keepAnswer(
          db,
          claim,
          answer.status,
          Buffer.from(answer.body === undefined ? "" : JSON.stringify(answer.body)),
        );
      else await freeKey(db, claim);
      send(res, answer);
    }
  };
}
