import { describe, expect, it } from "vitest";
import { errorReason } from "@voiceops/platform";
import { gatewayErrors, refusalAnswer } from "../src/errors/index.js";

// The gateway's own refusals, worded here letter for letter once; every other test compares
// answers with the named refusal.

describe("the gateway's named refusals", () => {
  it("each has its status and its wording", () => {
    const worded = Object.fromEntries(
      Object.entries({
        KEY_ROLE_ABOVE_OWN: gatewayErrors.KEY_ROLE_ABOVE_OWN("admin", "owner"),
        INVITE_ROLE_ABOVE_OWN: gatewayErrors.INVITE_ROLE_ABOVE_OWN("admin", "owner"),
        REMOVE_ROLE_ABOVE_OWN: gatewayErrors.REMOVE_ROLE_ABOVE_OWN("admin", "owner"),
        EMAIL_TAKEN: gatewayErrors.EMAIL_TAKEN(),
        ORGANIZATION_NOT_FOUND: gatewayErrors.ORGANIZATION_NOT_FOUND(),
        API_KEY_NOT_FOUND: gatewayErrors.API_KEY_NOT_FOUND(),
        USER_NOT_FOUND: gatewayErrors.USER_NOT_FOUND(),
        WRONG_CREDENTIALS: gatewayErrors.WRONG_CREDENTIALS(),
        SIGN_IN_THROTTLED: gatewayErrors.SIGN_IN_THROTTLED(),
        SETUP_LINK_UNUSABLE: gatewayErrors.SETUP_LINK_UNUSABLE(),
        NO_SESSION: gatewayErrors.NO_SESSION(),
        ADMIN_TOKEN_REFUSED: gatewayErrors.ADMIN_TOKEN_REFUSED(),
        API_KEY_MISSING: gatewayErrors.API_KEY_MISSING(),
        API_KEY_INVALID: gatewayErrors.API_KEY_INVALID(),
        SESSION_ENDED: gatewayErrors.SESSION_ENDED(),
        CSRF_TOKEN_INVALID: gatewayErrors.CSRF_TOKEN_INVALID(),
        ROLE_REQUIRED: gatewayErrors.ROLE_REQUIRED(["owner", "admin"]),
        RATE_LIMITED: gatewayErrors.RATE_LIMITED(),
        FILE_SIGNATURE_MISSING: gatewayErrors.FILE_SIGNATURE_MISSING(),
        FILE_SIGNATURE_INVALID: gatewayErrors.FILE_SIGNATURE_INVALID(),
        FILE_LINK_EXPIRED: gatewayErrors.FILE_LINK_EXPIRED(),
        NOT_FOUND: gatewayErrors.NOT_FOUND(),
      }).map(([name, error]) => {
        expect(errorReason(error)).toBe(name);
        const { status, body } = refusalAnswer(error);
        return [name, [status, body.detail]];
      }),
    );
    expect(worded).toEqual({
      KEY_ROLE_ABOVE_OWN: [403, "An admin cannot issue a key with the owner role"],
      INVITE_ROLE_ABOVE_OWN: [403, "An admin cannot invite a user with the owner role"],
      REMOVE_ROLE_ABOVE_OWN: [403, "An admin cannot remove an owner"],
      EMAIL_TAKEN: [409, "A user with this email already exists"],
      ORGANIZATION_NOT_FOUND: [404, "Organization not found"],
      API_KEY_NOT_FOUND: [404, "API key not found"],
      USER_NOT_FOUND: [404, "User not found"],
      WRONG_CREDENTIALS: [401, "Wrong email or password"],
      SIGN_IN_THROTTLED: [429, "Too many failed sign-ins; retry after the time in Retry-After"],
      SETUP_LINK_UNUSABLE: [404, "This set-up link is unknown, used or expired: ask for a new one"],
      NO_SESSION: [401, "Not signed in with a session"],
      ADMIN_TOKEN_REFUSED: [401, "Missing or invalid admin token"],
      API_KEY_MISSING: [401, "Missing API key: send it in the X-API-Key header"],
      API_KEY_INVALID: [401, "Invalid, revoked or expired API key"],
      SESSION_ENDED: [401, "Session expired or signed out: sign in again"],
      CSRF_TOKEN_INVALID: [403, "Missing or invalid CSRF token: send the session's token in the X-CSRF-Token header"],
      ROLE_REQUIRED: [403, "This operation requires the owner or admin role"],
      RATE_LIMITED: [429, "Too many requests; retry after the time in Retry-After"],
      FILE_SIGNATURE_MISSING: [403, "Missing or malformed signature"],
      FILE_SIGNATURE_INVALID: [403, "Invalid signature"],
      FILE_LINK_EXPIRED: [403, "This link has expired"],
      NOT_FOUND: [404, "Not Found"],
    });
    // Every refusal is covered above: a new one is worded here too.
    expect(Object.keys(worded).sort()).toEqual(Object.keys(gatewayErrors).sort());
  });
});
