import { timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { PrincipalCache } from "../identity/principal-cache.js";
import { csrfTokenOf, type UserStore } from "../identity/users.js";
import { gatewayErrors, sendRefusal } from "../errors/index.js";
import { CSRF_HEADER, sessionCookieOf } from "./session-cookie.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameToken(presented: string | string[] | undefined, expected: string): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * X-API-Key -> principal, or else the dashboard's session cookie -> the user's principal (same
 * organization scoping and roles); 401 without either. A request with a key is judged by the key
 * alone. A session's POST, PUT, PATCH and DELETE must also carry the session's CSRF token in
 * X-CSRF-Token (403 without it): a cookie a browser sends by itself never changes anything.
 * X-Organization-Id is never read.
 */
export function authenticate(cache: PrincipalCache, users?: UserStore) {
  return (req: Request, res: Response, next: NextFunction) => {
    const hash = req.apiKeyHash;
    const session = hash || !users ? undefined : sessionCookieOf(req);
    if (session && users) {
      users.principalOfSession(session).then(
        (principal) => {
          if (!principal) return sendRefusal(res, gatewayErrors.SESSION_ENDED());
          if (!SAFE_METHODS.has(req.method) && !sameToken(req.headers[CSRF_HEADER], csrfTokenOf(session))) {
            return sendRefusal(res, gatewayErrors.CSRF_TOKEN_INVALID());
          }
          req.principal = principal;
          req.csrfToken = csrfTokenOf(session);
          next();
        },
        (error: unknown) => next(error),
      );
      return;
    }
    if (!hash) return sendRefusal(res, gatewayErrors.API_KEY_MISSING());
    cache.lookup(hash).then(
      (principal) => {
        if (!principal) return sendRefusal(res, gatewayErrors.API_KEY_INVALID());
        req.principal = principal;
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

declare module "express-serve-static-core" {
  interface Request {
    /** The CSRF token of the request's session, when a session authenticated it. */
    csrfToken?: string;
  }
}
