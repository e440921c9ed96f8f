import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import { ROLES, type Database, type Role } from "@voiceops/platform";
import { gatewayErrors, refusalAnswer, sendJson, sendRefusal, type ValidationEntry } from "../errors/index.js";
import { InputChecker, uuidPathError } from "../http/validate-input.js";
import type { PrincipalCache } from "../identity/principal-cache.js";
import type { IdentityStore, Principal } from "../identity/store.js";
import { EmailTaken, type UserStore } from "../identity/users.js";
import { keyed, type Answer } from "./idempotency.js";
import { meBody, publicKey, publicUser, setupUrl } from "./views.js";

interface AccountDeps {
  users: UserStore;
  store: IdentityStore;
  cache: PrincipalCache;
  db: Database;
  idempotencyTtlSeconds: number;
  /** Where set-up links point (PUBLIC_URL, or the gateway's own address). */
  publicUrl: () => string;
}

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const invalid = (entries: ValidationEntry[]): Answer => ({ status: 422, body: { detail: entries } });

function principalOf(req: Request): Principal {
  const principal = req.principal;
  if (!principal) throw new Error("account routes need an authenticated request");
  return principal;
}

/** The roles that manage the organization's keys, users and settings. */
export const MANAGER_ROLES: readonly Role[] = ["owner", "admin"];
const isManager = (p: Principal) => MANAGER_ROLES.includes(p.role);

/**
 * What the dashboard needs beyond the services' routes, as REST for any client: who am I, the
 * organization's API keys and users, and its business hours. Mounted after authentication.
 */
export function accountRoutes(deps: AccountDeps, guard: RequestHandler[]): Router {
  const { users, store, cache } = deps;
  const router = Router();
  const answer = (handler: (req: Request) => Promise<Answer>) => keyed(deps.db, deps.idempotencyTtlSeconds, handler);
  const read =
    (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
      handler(req, res).catch(next);
    };

  router.get(
    "/api/me",
    ...guard,
    read(async (req, res) => {
      const p = principalOf(req);
      const user = p.userId ? await users.getUser(p.userId) : undefined;
      res.setHeader("Cache-Control", "no-store");
      sendJson(res, 200, await meBody(store, p.orgId, p.role, user, req.csrfToken ?? null));
    }),
  );

  router.get(
    "/api/api-keys",
    ...guard,
    read(async (req, res) => {
      const items = (await store.listApiKeys(principalOf(req).orgId)).map(publicKey);
      sendJson(res, 200, { items, total: items.length });
    }),
  );

  router.post(
    "/api/api-keys",
    ...guard,
    answer(async (req) => {
      const p = principalOf(req);
      if (!isManager(p)) return refusalAnswer(gatewayErrors.ROLE_REQUIRED(MANAGER_ROLES));
      const input = InputChecker.body(req.body ?? {});
      if (!(input instanceof InputChecker)) return invalid([input]);
      const name = input.string("name", { max: 100 }) ?? null;
      const role: Role = input.oneOf("role", ROLES) ?? "member";
      const expiresAt = input.futureDateTime("expires_at", Date.now()) ?? null;
      if (input.errors.length > 0) return invalid(input.errors);
      if (RANK[role] > RANK[p.role]) return refusalAnswer(gatewayErrors.KEY_ROLE_ABOVE_OWN(p.role, role));
      const created = await store.createApiKey(p.orgId, { name, role, expiresAt });
      return {
        status: 201,
        body: {
          id: created.id,
          key: created.key,
          prefix: created.prefix,
          role: created.role,
          name: created.name,
          expires_at: created.expires_at,
          created_at: created.created_at,
        },
      };
    }),
  );

  router.delete(
    "/api/api-keys/:key_id",
    ...guard,
    answer(async (req) => {
      const p = principalOf(req);
      const id = String(req.params.key_id);
      const bad = uuidPathError("key_id", id);
      if (bad) return invalid([bad]);
      if (!isManager(p)) return refusalAnswer(gatewayErrors.ROLE_REQUIRED(MANAGER_ROLES));
      const key = await store.getApiKey(id);
      if (!key || key.org_id !== p.orgId) return refusalAnswer(gatewayErrors.API_KEY_NOT_FOUND());
      await store.revokeApiKey(id);
      cache.invalidate({ keyId: id });
      return { status: 204 };
    }),
  );

  router.get(
    "/api/users",
    ...guard,
    read(async (req, res) => {
      const items = (await users.listUsers(principalOf(req).orgId)).map(publicUser);
      sendJson(res, 200, { items, total: items.length });
    }),
  );

  router.post(
    "/api/users",
    ...guard,
    answer(async (req) => {
      const p = principalOf(req);
      if (!isManager(p)) return refusalAnswer(gatewayErrors.ROLE_REQUIRED(MANAGER_ROLES));
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return invalid([input]);
      const parsed = userInput(input);
      if (!parsed) return invalid(input.errors);
      if (RANK[parsed.role] > RANK[p.role])
        return refusalAnswer(gatewayErrors.INVITE_ROLE_ABOVE_OWN(p.role, parsed.role));
      try {
        const created = await users.createUser(p.orgId, parsed);
        return {
          status: 201,
          body: {
            ...publicUser(created.user),
            setup_url: setupUrl(deps.publicUrl(), created.setupToken),
            setup_expires_at: created.setupExpiresAt,
          },
        };
      } catch (error) {
        if (error instanceof EmailTaken) return refusalAnswer(gatewayErrors.EMAIL_TAKEN());
        throw error;
      }
    }),
  );

  router.delete(
    "/api/users/:user_id",
    ...guard,
    answer(async (req) => {
      const p = principalOf(req);
      const id = String(req.params.user_id);
      const bad = uuidPathError("user_id", id);
      if (bad) return invalid([bad]);
      if (!isManager(p)) return refusalAnswer(gatewayErrors.ROLE_REQUIRED(MANAGER_ROLES));
      const user = await users.getUser(id);
      if (!user || user.org_id !== p.orgId) return refusalAnswer(gatewayErrors.USER_NOT_FOUND());
      if (RANK[user.role] > RANK[p.role]) return refusalAnswer(gatewayErrors.REMOVE_ROLE_ABOVE_OWN(p.role, user.role));
      await users.deleteUser(id, p.orgId);
      return { status: 204 };
    }),
  );

  router.get(
    "/api/settings/business-hours",
    ...guard,
    read(async (req, res) => {
      const org = await store.getOrganization(principalOf(req).orgId);
      if (!org) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      sendJson(res, 200, { business_hours: org.business_hours, timezone: org.timezone });
    }),
  );

  router.put(
    "/api/settings/business-hours",
    ...guard,
    answer(async (req) => {
      const p = principalOf(req);
      if (!isManager(p)) return refusalAnswer(gatewayErrors.ROLE_REQUIRED(MANAGER_ROLES));
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return invalid([input]);
      const hours = input.businessHours("business_hours");
      if (hours === undefined && input.errors.length === 0)
        input.errors.push({ loc: ["body", "business_hours"], msg: "Field required", type: "missing" });
      if (input.errors.length > 0 || hours === undefined) return invalid(input.errors);
      const org = await store.updateOrganization(p.orgId, { businessHours: hours });
      if (!org) return refusalAnswer(gatewayErrors.ORGANIZATION_NOT_FOUND());
      cache.invalidate({ orgId: org.id });
      return { status: 200, body: { business_hours: org.business_hours, timezone: org.timezone } };
    }),
  );

  return router;
}

/** The {email, name?, role} of an invitation (also the admin API's); undefined after a 422 entry. */
export function userInput(input: InputChecker): { email: string; name: string | null; role: Role } | undefined {
  const email = input.string("email", { required: true, max: 320 })?.trim();
  if (email !== undefined && !EMAIL.test(email))
    input.errors.push({
      loc: ["body", "email"],
      msg: "value is not a valid email address",
      type: "value_error",
      input: email,
    });
  const name = input.string("name", { max: 200 })?.trim() || null;
  const role: Role = input.oneOf("role", ROLES) ?? "member";
  if (input.errors.length > 0 || email === undefined) return undefined;
  return { email, name, role };
}
