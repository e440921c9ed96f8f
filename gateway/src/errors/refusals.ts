import type { Response } from "express";
import { sendDetail } from "./send.js";

// The gateway's own refusals (its account, sign-in and admin routes), as the services' named
// errors are theirs: each named once with its status and its message, so the routes, the OpenAPI
// document and the tests refer to the name, never to a second copy of the wording.

/** A refusal as the client gets it: the status and the `detail` sentence. */
export interface Refusal {
  readonly reason: string;
  readonly status: number;
  readonly detail: string;
}

interface RefusalSpec {
  readonly status: number;
  readonly message: string | ((...values: never[]) => string);
}

type ValuesOf<M> = M extends (...values: infer A) => string ? A : [];

type Refusals<T extends Record<string, RefusalSpec>> = {
  readonly [Name in keyof T]: (...values: ValuesOf<T[Name]["message"]>) => Refusal;
};

function defineRefusals<const T extends Record<string, RefusalSpec>>(specs: T): Refusals<T> {
  const refusals: Record<string, (...values: never[]) => Refusal> = {};
  for (const [reason, { status, message }] of Object.entries(specs))
    refusals[reason] = (...values: never[]) => ({
      reason,
      status,
      detail: typeof message === "string" ? message : message(...values),
    });
  return refusals as Refusals<T>;
}

export const gatewayRefusals = defineRefusals({
  MANAGER_ROLE_REQUIRED: { status: 403, message: "This operation requires the owner or admin role" },
  KEY_ROLE_ABOVE_OWN: {
    status: 403,
    message: (own: string, asked: string) => `An ${own} cannot issue a key with the ${asked} role`,
  },
  INVITE_ROLE_ABOVE_OWN: {
    status: 403,
    message: (own: string, asked: string) => `An ${own} cannot invite a user with the ${asked} role`,
  },
  REMOVE_ROLE_ABOVE_OWN: {
    status: 403,
    message: (own: string, theirs: string) => `An ${own} cannot remove an ${theirs}`,
  },
  EMAIL_TAKEN: { status: 409, message: "A user with this email already exists" },
  ORGANIZATION_NOT_FOUND: { status: 404, message: "Organization not found" },
  API_KEY_NOT_FOUND: { status: 404, message: "API key not found" },
  USER_NOT_FOUND: { status: 404, message: "User not found" },
  WRONG_CREDENTIALS: { status: 401, message: "Wrong email or password" },
  SIGN_IN_THROTTLED: { status: 429, message: "Too many failed sign-ins; retry after the time in Retry-After" },
  SETUP_LINK_UNUSABLE: {
    status: 404,
    message: "This set-up link is unknown, used or expired: ask for a new one",
  },
  NO_SESSION: { status: 401, message: "Not signed in with a session" },
  ADMIN_TOKEN_REFUSED: { status: 401, message: "Missing or invalid admin token" },
});

/** Answers a refusal: its status and `{"detail": ...}`. */
export function sendRefusal(res: Response, refusal: Refusal): void {
  sendDetail(res, refusal.status, refusal.detail);
}
