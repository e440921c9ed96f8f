import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import type { Logger } from "@voiceops/platform";
import { authenticate } from "../http/authenticate.js";
import { gatewayErrors, sendJson, sendRefusal, sendValidation } from "../errors/index.js";
import { addressBucket } from "../http/rate-limit.js";
import { clearSessionCookie, sessionCookieOf, setSessionCookie, type CookieOptions } from "../http/session-cookie.js";
import { InputChecker } from "../http/validate-input.js";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hashPassword, verifyPassword } from "../identity/passwords.js";
import type { PrincipalCache } from "../identity/principal-cache.js";
import type { IdentityStore } from "../identity/store.js";
import {
  csrfTokenOf,
  SESSION_ABSOLUTE_SECONDS,
  SIGN_IN_FAILURE_LIMIT,
  type User,
  type UserStore,
} from "../identity/users.js";
import { meBody } from "./views.js";

interface AuthDeps {
  users: UserStore;
  store: IdentityStore;
  cache: PrincipalCache;
  cookie: CookieOptions;
  logger: Logger;
  /** JSON body parsing of the sign-in and set-up forms. */
  body: RequestHandler[];
}

/** Sign-in, set-up (first password) and sign-out under /api/auth/ (CONTRACT.md "Users, sign-in and the dashboard"). */
export function authRoutes(deps: AuthDeps): Router {
  const { users, store } = deps;
  const router = Router();
  const route =
    (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
      handler(req, res).catch(next);
    };

  /** Starts a session for the user and answers what /api/me answers, with the CSRF token. */
  const signIn = async (res: Response, user: User, status: number) => {
    const session = await users.createSession(user.id);
    setSessionCookie(res, session.token, SESSION_ABSOLUTE_SECONDS, deps.cookie);
    res.setHeader("Cache-Control", "no-store");
    const signedIn = { ...user, last_sign_in_at: new Date().toISOString() };
    sendJson(res, status, await meBody(store, user.org_id, user.role, signedIn, csrfTokenOf(session.token)));
  };

  router.post(
    "/api/auth/sign-in",
    ...deps.body,
    route(async (req, res) => {
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return sendValidation(res, [input]);
      const email = input.string("email", { required: true, max: 320 });
      const password = input.string("password", { required: true, max: MAX_PASSWORD_LENGTH });
      if (input.errors.length > 0 || email === undefined || password === undefined)
        return sendValidation(res, input.errors);
      const buckets = [`addr:${addressBucket(req.ip)}`, `email:${email.trim().toLowerCase()}`];
      const recent = await users.recentFailures(buckets);
      if (recent.count >= SIGN_IN_FAILURE_LIMIT) {
        res.setHeader("Retry-After", String(recent.retryAfter));
        return sendRefusal(res, gatewayErrors.SIGN_IN_THROTTLED());
      }
      const found = await users.credentialsOf(email.trim());
      // Checked even without a user, so that an unknown email costs the same time as a wrong password.
      const matches = await verifyPassword(password, found?.passwordHash);
      if (!found || !matches) {
        await users.recordFailure(buckets);
        deps.logger.warn({ requestId: req.requestId }, "failed sign-in");
        return sendRefusal(res, gatewayErrors.WRONG_CREDENTIALS());
      }
      await signIn(res, found.user, 200);
    }),
  );

  router.post(
    "/api/auth/setup",
    ...deps.body,
    route(async (req, res) => {
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return sendValidation(res, [input]);
      const token = input.string("token", { required: true, max: 200 });
      const password = input.string("password", { required: true, max: MAX_PASSWORD_LENGTH });
      if (password !== undefined && [...password].length < MIN_PASSWORD_LENGTH) {
        input.errors.push({
          loc: ["body", "password"],
          msg: `String should have at least ${MIN_PASSWORD_LENGTH} characters`,
          type: "string_too_short",
          ctx: { min_length: MIN_PASSWORD_LENGTH },
        });
      }
      if (input.errors.length > 0 || token === undefined || password === undefined)
        return sendValidation(res, input.errors);
      const user = await users.completeSetup(token, await hashPassword(password));
      if (!user) return sendRefusal(res, gatewayErrors.SETUP_LINK_UNUSABLE());
      await signIn(res, user, 200);
    }),
  );

  // Whether the browser's cookie is a live session, without a 401 when it is not: the
  // dashboard asks this first, and a signed-out visitor is not an error.
  router.get(
    "/api/auth/session",
    route(async (req, res) => {
      const token = sessionCookieOf(req);
      const principal = token ? await users.principalOfSession(token) : undefined;
      const user = principal?.userId ? await users.getUser(principal.userId) : undefined;
      res.setHeader("Cache-Control", "no-store");
      if (!token || !principal || !user) return sendJson(res, 200, { signed_in: false, me: null });
      sendJson(res, 200, {
        signed_in: true,
        me: await meBody(store, principal.orgId, principal.role, user, csrfTokenOf(token)),
      });
    }),
  );

  router.post(
    "/api/auth/sign-out",
    authenticate(deps.cache, users),
    route(async (req, res) => {
      const sessionId = req.principal?.sessionId;
      if (!sessionId) return sendRefusal(res, gatewayErrors.NO_SESSION());
      await users.endSession(sessionId);
      clearSessionCookie(res, deps.cookie);
      res.status(204).end();
    }),
  );

  return router;
}
