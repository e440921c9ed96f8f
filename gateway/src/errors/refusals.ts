import type { ConnectError } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import { defineErrors } from "@voiceops/platform";
import type { Response } from "express";
import { HTTP_STATUS_OF_CODE } from "./http-status.js";
import { sendDetail } from "./send.js";

/**
 * The gateway's own refusals (its account, sign-in and admin routes, which are Express routes,
 * not RPCs), named and worded once as the services' errors are: the routes, the OpenAPI
 * document and the tests refer to the name, and the status is the code's, from the one table.
 */
export const gatewayErrors = defineErrors("gateway", {
  KEY_ROLE_ABOVE_OWN: {
    code: Code.PermissionDenied,
    message: (own: string, asked: string) => `An ${own} cannot issue a key with the ${asked} role`,
  },
  INVITE_ROLE_ABOVE_OWN: {
    code: Code.PermissionDenied,
    message: (own: string, asked: string) => `An ${own} cannot invite a user with the ${asked} role`,
  },
  REMOVE_ROLE_ABOVE_OWN: {
    code: Code.PermissionDenied,
    message: (own: string, theirs: string) => `An ${own} cannot remove an ${theirs}`,
  },
  EMAIL_TAKEN: { code: Code.AlreadyExists, message: "A user with this email already exists" },
  ORGANIZATION_NOT_FOUND: { code: Code.NotFound, message: "Organization not found" },
  API_KEY_NOT_FOUND: { code: Code.NotFound, message: "API key not found" },
  USER_NOT_FOUND: { code: Code.NotFound, message: "User not found" },
  WRONG_CREDENTIALS: { code: Code.Unauthenticated, message: "Wrong email or password" },
  SIGN_IN_THROTTLED: {
    code: Code.ResourceExhausted,
    message: "Too many failed sign-ins; retry after the time in Retry-After",
  },
  SETUP_LINK_UNUSABLE: {
    code: Code.NotFound,
    message: "This set-up link is unknown, used or expired: ask for a new one",
  },
  NO_SESSION: { code: Code.Unauthenticated, message: "Not signed in with a session" },
  ADMIN_TOKEN_REFUSED: { code: Code.Unauthenticated, message: "Missing or invalid admin token" },
  API_KEY_MISSING: { code: Code.Unauthenticated, message: "Missing API key: send it in the X-API-Key header" },
  API_KEY_INVALID: { code: Code.Unauthenticated, message: "Invalid, revoked or expired API key" },
  SESSION_ENDED: { code: Code.Unauthenticated, message: "Session expired or signed out: sign in again" },
  CSRF_TOKEN_INVALID: {
    code: Code.PermissionDenied,
    message: "Missing or invalid CSRF token: send the session's token in the X-CSRF-Token header",
  },
  ROLE_REQUIRED: {
    code: Code.PermissionDenied,
    message: (roles: readonly string[]) => `This operation requires the ${roles.join(" or ")} role`,
  },
  RATE_LIMITED: { code: Code.ResourceExhausted, message: "Too many requests; retry after the time in Retry-After" },
  FILE_SIGNATURE_MISSING: { code: Code.PermissionDenied, message: "Missing or malformed signature" },
  FILE_SIGNATURE_INVALID: { code: Code.PermissionDenied, message: "Invalid signature" },
  FILE_LINK_EXPIRED: { code: Code.PermissionDenied, message: "This link has expired" },
  NOT_FOUND: { code: Code.NotFound, message: "Not Found" },
});

/** A refusal as the client gets it: the status of its code and its message as `detail`. */
export function refusalAnswer(error: ConnectError): { status: number; body: { detail: string } } {
  return { status: HTTP_STATUS_OF_CODE[error.code], body: { detail: error.rawMessage } };
}

/** Answers a refusal: its status and `{"detail": ...}`. */
export function sendRefusal(res: Response, error: ConnectError): void {
  const { status, body } = refusalAnswer(error);
  sendDetail(res, status, body.detail);
}
