import type { Express, NextFunction, Request, Response } from "express";
import { isDatabaseUnavailable, type Logger } from "@voiceops/platform";
import { gatewayErrors, sendRefusal } from "./refusals.js";
import { sendDetail, sendValidation } from "./send.js";
import { jsonDecodeError, refusal } from "./fastapi.js";

interface HttpError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  code?: string;
  message?: string;
}

/** Whether the client went away before its request was read (nothing to answer, nothing wrong). */
function clientAborted(error: HttpError, req: Request): boolean {
  return (
    error.type === "request.aborted" || error.code === "ECONNABORTED" || (req.destroyed && error.code === "ECONNRESET")
  );
}

/** Last handlers of an app: unknown routes are JSON 404s; errors never leak internals. */
export function jsonErrors(app: Express, logger: Logger): void {
  app.use((_req: Request, res: Response) => sendRefusal(res, gatewayErrors.NOT_FOUND()));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = (typeof error === "object" && error !== null ? error : {}) as HttpError;
    if (clientAborted(e, req)) {
      logger.debug({ requestId: req.requestId }, "client aborted the request");
      return;
    }
    if (res.headersSent) {
      logger.error({ err: error, requestId: req.requestId }, "error after the answer started");
      return;
    }
    if (e.type === "entity.parse.failed") {
      return sendValidation(res, [jsonDecodeError(e.message ?? "invalid JSON")]);
    }
    // A compressed body that does not decompress (Content-Encoding: gzip over garbage): zlib's
    // and brotli's errors, which the body parser passes on as an untyped 400.
    const encoding = req.headers["content-encoding"];
    if (
      e.type === undefined &&
      (e.status ?? e.statusCode) === 400 &&
      encoding !== undefined &&
      encoding !== "identity"
    ) {
      return sendValidation(res, [jsonDecodeError("the body could not be decoded with its Content-Encoding")]);
    }
    if (e.type === "entity.too.large") return sendDetail(res, 413, "Request body too large");
    if (e.type === "encoding.unsupported" || e.type === "charset.unsupported")
      return sendDetail(res, 415, "Unsupported request encoding");
    // The router could not percent-decode a path segment (/api/contacts/%ZZ).
    if (error instanceof URIError) {
      return sendValidation(res, [refusal(["path"], "Invalid percent-encoding in the path")]);
    }
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error, requestId: req.requestId }, "database unavailable");
      return sendDetail(res, 503, "Service temporarily unavailable");
    }
    const status = e.status ?? e.statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      return sendDetail(res, status, e.expose && e.message ? e.message : "Bad request");
    }
    logger.error({ err: error, requestId: req.requestId }, "unhandled error");
    sendDetail(res, 500, "Internal server error");
  });
}
