import type { NextFunction, Request, Response } from "express";
import type { PrincipalCache } from "../identity/principal-cache.js";
import { sendDetail } from "../errors/index.js";

/** X-API-Key -> principal, or 401. X-Organization-Id is never read. */
export function authenticate(cache: PrincipalCache) {
  return (req: Request, res: Response, next: NextFunction) => {
    const hash = req.apiKeyHash;
    if (!hash) return sendDetail(res, 401, "Missing API key: send it in the X-API-Key header");
    cache.lookup(hash).then(
      (principal) => {
        if (!principal) return sendDetail(res, 401, "Invalid, revoked or expired API key");
        req.principal = principal;
        next();
      },
      (error: unknown) => next(error),
    );
  };
}
