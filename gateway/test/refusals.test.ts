import { describe, expect, it } from "vitest";
import { gatewayRefusals } from "../src/errors/index.js";

// The gateway's own refusals, worded here letter for letter once; every other test compares
// answers with the named refusal.

describe("the gateway's named refusals", () => {
  it("each has its status and its wording", () => {
    const worded = Object.fromEntries(
      Object.entries({
        MANAGER_ROLE_REQUIRED: gatewayRefusals.MANAGER_ROLE_REQUIRED(),
        KEY_ROLE_ABOVE_OWN: gatewayRefusals.KEY_ROLE_ABOVE_OWN("admin", "owner"),
        INVITE_ROLE_ABOVE_OWN: gatewayRefusals.INVITE_ROLE_ABOVE_OWN("admin", "owner"),
        REMOVE_ROLE_ABOVE_OWN: gatewayRefusals.REMOVE_ROLE_ABOVE_OWN("admin", "owner"),
        EMAIL_TAKEN: gatewayRefusals.EMAIL_TAKEN(),
        ORGANIZATION_NOT_FOUND: gatewayRefusals.ORGANIZATION_NOT_FOUND(),
        API_KEY_NOT_FOUND: gatewayRefusals.API_KEY_NOT_FOUND(),
        USER_NOT_FOUND: gatewayRefusals.USER_NOT_FOUND(),
        WRONG_CREDENTIALS: gatewayRefusals.WRONG_CREDENTIALS(),
        SIGN_IN_THROTTLED: gatewayRefusals.SIGN_IN_THROTTLED(),
        SETUP_LINK_UNUSABLE: gatewayRefusals.SETUP_LINK_UNUSABLE(),
        NO_SESSION: gatewayRefusals.NO_SESSION(),
        ADMIN_TOKEN_REFUSED: gatewayRefusals.ADMIN_TOKEN_REFUSED(),
      }).map(([name, refusal]) => {
        expect(refusal.reason).toBe(name);
        return [name, [refusal.status, refusal.detail]];
      }),
    );
    expect(worded).toEqual({
      MANAGER_ROLE_REQUIRED: [403, "This operation requires the owner or admin role"],
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
    });
    // Every refusal is covered above: a new one is worded here too.
    expect(Object.keys(worded).sort()).toEqual(Object.keys(gatewayRefusals).sort());
  });
});
