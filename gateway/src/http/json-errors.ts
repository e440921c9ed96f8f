import type { Express, NextFunction, Request, Response } from "express";
import type { Logger } from "@voiceops/platform";
import { sendDetail, sendValidation } from "./errors.js";

interface BodyParserError {
  type?: string;
  status?: number;
  body?: string;
  message?: string;
}

/** Last handlers of an app: unknown routes are JSON 404s; errors never leak internals. */
export function jsonErrors(app: Express, logger: Logger): void {
  app.use((_req: Request, res: Response) => sendDetail(res, 404, "Not Found"));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const parserError = error as BodyParserError;
    if (parserError.type === "entity.parse.failed") {
      return sendValidation(res, [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid", ctx: { error: parserError.message ?? "invalid JSON" } }]);
    }
    if (parserError.type === "entity.too.large") return sendDetail(res, 413, "Request body too large");
    if (parserError.type === "encoding.unsupported" || parserError.type === "charset.unsupported") {
      return sendDetail(res, 415, "Unsupported request encoding");
    }
    logger.error({ err: error, requestId: req.requestId }, "unhandled error");
    if (!res.headersSent) sendDetail(res, 500, "Internal server error");
  });
}
