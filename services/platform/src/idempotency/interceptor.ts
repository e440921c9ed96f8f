import { createHash } from "node:crypto";
import { fromBinary, getOption, hasOption, toBinary, type DescMethod, type DescMessage } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextKey,
  type HandlerContext,
  type Interceptor,
  type UnaryResponse,
} from "@connectrpc/connect";
import { http } from "@voiceops/proto/google/api/annotations_pb";
import type { Database } from "../db/database.js";
import { pgErrorCode } from "../db/database.js";
import { newId } from "../ids.js";
import type { Logger } from "../log.js";
import { orgContextKey } from "../rpc/org-context.js";
import { decodeErrorAnswer, encodeErrorAnswer, isKeptError } from "./answers.js";
import {
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENCY_RETRY_AFTER_SECONDS,
  IdempotencyMetadata,
  idempotencyRefusalOf,
  type IdempotencyRefusal,
} from "./keys.js";
import { type Claim, type ExistingRecord, freeKey, KeyRecords, MARK_LOST } from "./records.js";

/** The key the running call holds, for `ServiceContext.write` to mark in its transaction. */
const idempotencyClaimKey = createContextKey<Claim | undefined>(undefined, {
  description: "idempotency key held by the call",
});

/** The key a handler's call holds, if it was made under one. */
export function claimOf(context: HandlerContext): Claim | undefined {
  return context.values.get(idempotencyClaimKey);
}

export interface IdempotencyOptions {
  db: Database;
  logger: Logger;
  /** How long a kept answer is replayed (IDEMPOTENCY_TTL_HOURS). */
  ttlSeconds: number;
  /**
   * How long an attempt holds its key before a retry may take it over (if it committed
   * nothing). Longer than any call's deadline, so a live attempt is rarely overtaken; one that
   * is loses its commit (records.markStatement), never doubles it.
   */
  leaseSeconds?: number;
}

const DEFAULT_LEASE_SECONDS = 60;
const honours = new WeakMap<DescMethod, boolean>();

/** Whether an RPC takes keys: every one but those the REST API reads with GET (peer lookups send keys too). */
function takesKeys(method: DescMethod): boolean {
  let takes = honours.get(method);
  if (takes === undefined) {
    takes = !(hasOption(method, http) && getOption(method, http).pattern.case === "get");
    honours.set(method, takes);
  }
  return takes;
}

/** A refusal of the key: 422 for another request, 409 while it runs or once its answer is lost. */
function refusalError(refusal: IdempotencyRefusal): ConnectError {
  const error = new ConnectError(
    IDEMPOTENCY_MESSAGES[refusal],
    refusal === "mismatch" ? Code.InvalidArgument : Code.Aborted,
  );
  error.metadata.set(IdempotencyMetadata.refusal, refusal);
  if (refusal === "in-flight") error.metadata.set("retry-after", String(IDEMPOTENCY_RETRY_AFTER_SECONDS));
  return error;
}

/** A caller that sends no fingerprint (a service calling a peer) is identified by the message. */
function messageFingerprint(method: DescMethod, message: unknown): string {
  const bytes = toBinary(method.input, message as never);
  return createHash("sha256")
    .update(`rpc\n${method.parent.typeName}/${method.name}\n`)
    .update(bytes)
    .digest("base64url");
}

/**
 * What an existing record answers: a replay of its kept answer, or a refusal. Connect replaces
 * the handler's response headers with an interceptor's, so a replay carries the content type
 * itself: a unary answer is encoded as its request was.
 */
function answerExisting<I extends DescMessage, O extends DescMessage>(
  method: DescMethod,
  requestHeader: Headers,
  existing: ExistingRecord,
  fingerprint: string,
): UnaryResponse<I, O> {
  if (existing.fingerprint !== fingerprint) throw refusalError("mismatch");
  if (existing.answerCode === null || existing.answer === null)
    throw refusalError(existing.running ? "in-flight" : "lost");
  const header = new Headers({
    [IdempotencyMetadata.replayed]: "true",
    "content-type": requestHeader.get("content-type") ?? "application/proto",
  });
  if (existing.answerCode !== 0) {
    const error = decodeErrorAnswer(existing.answerCode, existing.answer);
    error.metadata.set(IdempotencyMetadata.replayed, "true");
    throw error;
  }
  return {
    stream: false,
    service: method.parent,
    method,
    header,
    trailer: new Headers(),
    message: fromBinary(method.output, existing.answer),
  } as unknown as UnaryResponse<I, O>;
}

/**
 * Idempotency keys on the service side, where the write happens: a call carrying a key claims
 * it in the database before its handler runs (one statement, shared with the claims of calls
 * made at the same time: KeyRecords); the handler's writes mark it in their own transaction
 * (ServiceContext.write); its answer is kept when it returns (shared likewise). The same
 * key again replays the kept answer, or is refused (another request: 422; still running: 409).
 * Answers that ran nothing or may be retried (401, 403, 422, 429, 5xx) free the key.
 */
export function idempotency(options: IdempotencyOptions): Interceptor {
  const { db, logger } = options;
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const records = new KeyRecords(db);
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const key = req.header.get(IdempotencyMetadata.key);
    if (key === null || key === "" || !takesKeys(req.method)) return next(req);
    const org = req.contextValues.get(orgContextKey);
    if (!org) return next(req);
    const fingerprint = req.header.get(IdempotencyMetadata.fingerprint) || messageFingerprint(req.method, req.message);
    const claim: Claim = { orgId: org.orgId, key, attempt: newId() };
    const existing = await records.claim({ ...claim, fingerprint, leaseSeconds, ttlSeconds: options.ttlSeconds });
    if (existing) return answerExisting(req.method, req.header, existing, fingerprint);

    req.contextValues.set(idempotencyClaimKey, claim);
    // Calls the handler makes to other services carry keys derived from this one (orgHeaders).
    org.idempotency = { key, calls: 0 };
    let response: Awaited<ReturnType<typeof next>>;
    try {
      response = await next(req);
    } catch (error) {
      throw await settleFailure(db, records, claim, error, logger);
    }
    if (response.stream) return response;
    try {
      await records.keep(claim, 0, toBinary(req.method.output, response.message as never));
    } catch (error) {
      // The change is made and answered; a retry will hear that its answer was lost.
      logger.warn({ err: error, method: req.method.name }, "idempotency answer not kept");
    }
    return response;
  };
}

/** After a failed call: keeps the answer (kept statuses, or a change already committed) or frees the key. */
async function settleFailure(
  db: Database,
  records: KeyRecords,
  claim: Claim,
  error: unknown,
  logger: Logger,
): Promise<unknown> {
  // The write's commit found the key taken over (this attempt outlived its lease): it rolled back.
  if (pgErrorCode(error) === MARK_LOST) return refusalError("in-flight");
  const failure = ConnectError.from(error);
  try {
    // A refusal a peer's key answered (a derived key in flight) is not this request's answer.
    if (isKeptError(failure.code) && idempotencyRefusalOf(failure) === undefined) {
      await records.keep(claim, failure.code, encodeErrorAnswer(failure));
    } else if (!(await freeKey(db, claim))) {
      // It committed a change and then failed: it must not run again, so its answer is kept.
      await records.keep(claim, failure.code, encodeErrorAnswer(failure));
    }
  } catch (storeError) {
    logger.warn({ err: storeError }, "idempotency key not settled after a failed call");
  }
  return error;
}
