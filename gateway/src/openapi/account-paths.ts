import { MANAGER_ROLES } from "../account/routes.js";
import { apiHeaders, gatewayErrors } from "../errors/index.js";
import {
  errorResponse as error,
  jsonRequestBody as body,
  jsonResponse as ok,
  ref,
  withGatewayResponses,
  type Json,
} from "./operation-parts.js";

// The gateway's own account routes (gateway/src/account) in the OpenAPI document: sign-in,
// set-up and sign-out under /api/auth/, who am I, the organization's API keys, users and
// business hours. Authenticated by an API key or the dashboard's session cookie (whose
// POST, PUT and DELETE also need X-CSRF-Token).

const ROLE = { type: "string", enum: ["owner", "admin", "member"] };
const TIME = { type: "string", format: "date-time" };
const NULLABLE_TIME = { type: ["string", "null"], format: "date-time" };
const WEEK_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** Opening hours per weekday, "HH:MM" intervals. */
const WEEK: Json = {
  type: "object",
  properties: Object.fromEntries(
    WEEK_DAYS.map((day) => [
      day,
      {
        type: "array",
        items: {
          type: "object",
          required: ["start", "end"],
          properties: {
            start: { type: "string", pattern: "^\\d\\d:\\d\\d$" },
            end: { type: "string", pattern: "^\\d\\d:\\d\\d$" },
          },
        },
      },
    ]),
  ),
};

const list = (item: string) => ({
  type: "object",
  required: ["items", "total"],
  properties: { items: { type: "array", items: ref(item) }, total: { type: "integer" } },
  additionalProperties: false,
});

export const ACCOUNT_SCHEMAS: Record<string, Json> = {
  User: {
    type: "object",
    description: "A dashboard user of the organization.",
    required: ["id", "email", "name", "role", "created_at", "last_sign_in_at"],
    properties: {
      id: { type: "string", format: "uuid" },
      email: { type: "string" },
      name: { type: ["string", "null"] },
      role: ROLE,
      created_at: TIME,
      last_sign_in_at: NULLABLE_TIME,
    },
    additionalProperties: false,
  },
  InvitedUser: {
    type: "object",
    description: "A new user with the one-time set-up link (valid 72 h) where they choose a password; shown only here.",
    required: ["id", "email", "name", "role", "created_at", "last_sign_in_at", "setup_url", "setup_expires_at"],
    properties: {
      id: { type: "string", format: "uuid" },
      email: { type: "string" },
      name: { type: ["string", "null"] },
      role: ROLE,
      created_at: TIME,
      last_sign_in_at: NULLABLE_TIME,
      setup_url: { type: "string", format: "uri" },
      setup_expires_at: TIME,
    },
    additionalProperties: false,
  },
  UserList: list("User"),
  UserInvite: {
    type: "object",
    required: ["email"],
    properties: {
      email: { type: "string", format: "email", maxLength: 320 },
      name: { type: "string", maxLength: 200 },
      role: { ...ROLE, default: "member" },
    },
  },
  OrganizationSummary: {
    type: "object",
    required: ["id", "name", "timezone", "default_country"],
    properties: {
      id: { type: "string", format: "uuid" },
      name: { type: "string" },
      timezone: { type: "string" },
      default_country: { type: "string" },
    },
    additionalProperties: false,
  },
  Me: {
    type: "object",
    description:
      "Who is calling: the signed-in user (null for an API key), the organization and the role. `csrf_token` is the session's token for X-CSRF-Token (null for an API key).",
    required: ["user", "organization", "role", "csrf_token"],
    properties: {
      user: { anyOf: [ref("User"), { type: "null" }] },
      organization: { anyOf: [ref("OrganizationSummary"), { type: "null" }] },
      role: ROLE,
      csrf_token: { type: ["string", "null"] },
    },
    additionalProperties: false,
  },
  Session: {
    type: "object",
    description: "Whether the request's session cookie is a live session, and who it is.",
    required: ["signed_in", "me"],
    properties: { signed_in: { type: "boolean" }, me: { anyOf: [ref("Me"), { type: "null" }] } },
    additionalProperties: false,
  },
  SignIn: {
    type: "object",
    required: ["email", "password"],
    properties: { email: { type: "string", maxLength: 320 }, password: { type: "string", maxLength: 1024 } },
  },
  Setup: {
    type: "object",
    required: ["token", "password"],
    properties: {
      token: { type: "string", description: "The token of the set-up link (after #token=)." },
      password: { type: "string", minLength: 12, maxLength: 1024 },
    },
  },
  ApiKey: {
    type: "object",
    description: "An API key, without its secret.",
    required: ["id", "name", "prefix", "role", "expires_at", "revoked_at", "created_at"],
    properties: {
      id: { type: "string", format: "uuid" },
      name: { type: ["string", "null"] },
      prefix: { type: "string" },
      role: ROLE,
      expires_at: NULLABLE_TIME,
      revoked_at: NULLABLE_TIME,
      created_at: TIME,
    },
    additionalProperties: false,
  },
  NewApiKey: {
    type: "object",
    description: "A new API key; `key` is the secret, shown only here.",
    required: ["id", "key", "prefix", "role", "name", "expires_at", "created_at"],
    properties: {
      id: { type: "string", format: "uuid" },
      key: { type: "string" },
      prefix: { type: "string" },
      role: ROLE,
      name: { type: ["string", "null"] },
      expires_at: NULLABLE_TIME,
      created_at: TIME,
    },
    additionalProperties: false,
  },
  ApiKeyList: list("ApiKey"),
  ApiKeyCreate: {
    type: "object",
    properties: {
      name: { type: "string", maxLength: 100 },
      role: { ...ROLE, default: "member" },
      expires_at: { ...TIME, description: "In the future; unset = never." },
    },
  },
  BusinessHoursUpdate: {
    type: "object",
    description: "The whole week, replacing the one stored.",
    required: ["business_hours"],
    properties: { business_hours: WEEK },
  },
  BusinessHours: {
    type: "object",
    description: "Opening hours per weekday in the organization's time zone; a day left out is closed.",
    required: ["business_hours", "timezone"],
    properties: {
      business_hours: WEEK,
      timezone: { type: "string", readOnly: true },
    },
  },
};

const SECURED = [{ ApiKeyAuth: [] }, { SessionCookie: [] }];

const validation = { $ref: "#/components/responses/ValidationError" };
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
const tooMany = { $ref: "#/components/responses/TooManyRequests" };
const forbidden = error(
  "Requires the owner or admin role, or a session's request without its X-CSRF-Token.",
  gatewayErrors.ROLE_REQUIRED(MANAGER_ROLES).rawMessage,
);
const keyParameter = { $ref: "#/components/parameters/IdempotencyKey" };

function pathId(name: string, description: string): Json {
  return { name, in: "path", required: true, description, schema: { type: "string", format: "uuid" } };
}

/** The account paths. */
export function accountPaths(): Record<string, Json> {
  return withGatewayResponses(accountOperations());
}

function accountOperations(): Record<string, Json> {
  const tags = ["account"];
  return {
    "/api/auth/sign-in": {
      post: {
        operationId: "signIn",
        summary: "Sign in with email and password",
        description:
          "Starts a session: sets the HttpOnly session cookie (12 h idle, 7 days at most) and answers the caller with the CSRF token its changes must send in X-CSRF-Token. A wrong email or password: one 401 for both. After 10 failed sign-ins within 15 minutes from one address or for one email: 429.",
        tags,
        security: [],
        requestBody: body("SignIn"),
        responses: {
          ...ok("200", "Me", "Signed in; Set-Cookie carries the session."),
          "401": error("Wrong email or password.", gatewayErrors.WRONG_CREDENTIALS().rawMessage),
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/api/auth/setup": {
      post: {
        operationId: "completeSetup",
        summary: "Choose a password with a set-up link, and sign in",
        description:
          "Uses the one-time token of a set-up link (valid 72 h): sets the password (at least 12 characters) and signs in as /api/auth/sign-in does.",
        tags,
        security: [],
        requestBody: body("Setup"),
        responses: {
          ...ok("200", "Me", "Password set and signed in."),
          "404": error("The link is unknown, used or expired.", gatewayErrors.SETUP_LINK_UNUSABLE().rawMessage),
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/api/auth/session": {
      get: {
        operationId: "getSession",
        summary: "The browser's session, if any",
        description:
          "200 in every case: `signed_in` false without a live session cookie (no 401), else the caller as /api/me describes it.",
        tags,
        security: [],
        responses: { ...ok("200", "Session"), "429": tooMany },
      },
    },
    "/api/auth/sign-out": {
      post: {
        operationId: "signOut",
        summary: "Sign out",
        description: "Ends the session at once everywhere (needs X-CSRF-Token) and clears the cookie.",
        tags,
        security: [{ SessionCookie: [] }],
        responses: {
          "204": { description: "Signed out.", headers: apiHeaders() },
          "401": unauthorized,
          "403": forbidden,
          "429": tooMany,
        },
      },
    },
    "/api/me": {
      get: {
        operationId: "getMe",
        summary: "Who is calling",
        tags,
        security: SECURED,
        responses: { ...ok("200", "Me"), "401": unauthorized, "429": tooMany },
      },
    },
    "/api/api-keys": {
      get: {
        operationId: "listApiKeys",
        summary: "The organization's API keys",
        tags,
        security: SECURED,
        responses: { ...ok("200", "ApiKeyList"), "401": unauthorized, "429": tooMany },
      },
      post: {
        operationId: "createApiKey",
        summary: "Generate an API key (owner or admin)",
        description: "The secret is answered only here. A key's role cannot be above the caller's.",
        tags,
        security: SECURED,
        parameters: [keyParameter],
        requestBody: { required: false, content: { "application/json": { schema: ref("ApiKeyCreate") } } },
        responses: {
          ...ok("201", "NewApiKey"),
          "401": unauthorized,
          "403": forbidden,
          "409": error("Idempotency-Key in use.", "A request with this Idempotency-Key is still being processed"),
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/api/api-keys/{key_id}": {
      delete: {
        operationId: "revokeApiKey",
        summary: "Revoke an API key (owner or admin)",
        description: "The key stops working at once on every gateway replica.",
        tags,
        security: SECURED,
        parameters: [pathId("key_id", "The key's id."), keyParameter],
        responses: {
          "204": { description: "Revoked.", headers: apiHeaders() },
          "401": unauthorized,
          "403": forbidden,
          "404": { $ref: "#/components/responses/NotFound" },
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/api/users": {
      get: {
        operationId: "listUsers",
        summary: "The organization's dashboard users",
        tags,
        security: SECURED,
        responses: { ...ok("200", "UserList"), "401": unauthorized, "429": tooMany },
      },
      post: {
        operationId: "inviteUser",
        summary: "Invite a user (owner or admin)",
        description:
          "Answers the user with a one-time set-up link, valid 72 h. A user's role cannot be above the caller's.",
        tags,
        security: SECURED,
        parameters: [keyParameter],
        requestBody: body("UserInvite"),
        responses: {
          ...ok("201", "InvitedUser"),
          "401": unauthorized,
          "403": forbidden,
          "409": error("A user with this email already exists.", gatewayErrors.EMAIL_TAKEN().rawMessage),
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/api/users/{user_id}": {
      delete: {
        operationId: "removeUser",
        summary: "Remove a user (owner or admin)",
        description: "Their sessions end at once.",
        tags,
        security: SECURED,
        parameters: [pathId("user_id", "The user's id."), keyParameter],
        responses: {
          "204": { description: "Removed.", headers: apiHeaders() },
          "401": unauthorized,
          "403": forbidden,
          "404": { $ref: "#/components/responses/NotFound" },
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/api/settings/business-hours": {
      get: {
        operationId: "getBusinessHours",
        summary: "The organization's business hours",
        tags,
        security: SECURED,
        responses: { ...ok("200", "BusinessHours"), "401": unauthorized, "429": tooMany },
      },
      put: {
        operationId: "setBusinessHours",
        summary: "Replace the business hours (owner or admin)",
        tags,
        security: SECURED,
        parameters: [keyParameter],
        requestBody: body("BusinessHoursUpdate"),
        responses: {
          ...ok("200", "BusinessHours"),
          "401": unauthorized,
          "403": forbidden,
          "422": validation,
          "429": tooMany,
        },
      },
    },
  };
}
