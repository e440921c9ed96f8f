import { timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { nulCharacter, registry, ROLES, violation, type Logger, type Role } from "@voiceops/platform";
import { fastApiEntry, gatewayErrors, jsonErrors, sendRefusal, sendValidation } from "../errors/index.js";
import { requestContext } from "../http/request-context.js";
import { InputChecker, uuidPathError } from "../http/validate-input.js";
import type { PrincipalCache } from "../identity/principal-cache.js";
import type { IdentityStore } from "../identity/store.js";
import { EmailTaken, type UserStore } from "../identity/users.js";
import { userInput } from "../account/routes.js";
import { publicUser, setupUrl } from "../account/views.js";
import { jsonBody } from "../http/json-body.js";

function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** The operators' API (organizations and keys) on its own listener, behind a bearer token. */
export function createAdminApp(deps: {
  store: IdentityStore;
  cache: PrincipalCache;
  users: UserStore;
  publicUrl: () => string;
  adminToken: string;
  logger: Logger;
}) {
  const { store, cache, users } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.use(requestContext(deps.logger));
  // Prometheus scrapes the admin listener, which no public Service exposes; metrics hold no secrets.
  app.get("/metrics", (_req, res, next) => {
    registry.metrics().then((text) => {
      res.setHeader("content-type", registry.contentType);
      res.end(text);
    }, next);
  });
  app.use((req, res, next) => {
    if (!bearerMatches(req.header("authorization"), deps.adminToken))
      return sendRefusal(res, gatewayErrors.ADMIN_TOKEN_REFUSED());
    next();
  });
  app.use(jsonBody("64kb"));
  const route = (handler: Handler) => (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };

  app.post(
    "/admin/organizations",
    route(async (req, res) => {
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return sendValidation(res, [input]);
      const name = input.string("name", { required: true, max: 200 });
      const timezone = input.timezone("timezone") ?? "UTC";
      const country = input.country("default_country") ?? "US";
      const businessHours = input.businessHours("business_hours");
      if (input.errors.length > 0 || name === undefined) return sendValidation(res, input.errors);
      res
        .status(201)
        .json(await store.createOrganization({ name: name.trim(), timezone, defaultCountry: country, businessHours }));
    }),
  );

  app.get(
    "/admin/organizations",
    route(async (req, res) => {
      const name = typeof req.query.name === "string" ? req.query.name : undefined;
      if (!name) return sendValidation(res, [fastApiEntry(["query", "name"], violation("name", "required", ""))]);
      if (name.includes("\u0000"))
        return sendValidation(res, [fastApiEntry(["query", "name"], nulCharacter("name", name))]);
      const items = await store.findOrganizationsByName(name);
      res.json({ items, total: items.length });
    }),
  );

  app.get(
    "/admin/organizations/:id",
    route(async (req, res) => {
      const id = String(req.params.id);
      const bad = uuidPathError("id", id);
      if (bad) return sendValidation(res, [bad]);
      const org = await store.getOrganization(id);
      if (!org) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      res.json(org);
    }),
  );

  app.patch(
    "/admin/organizations/:id",
    route(async (req, res) => {
      const id = String(req.params.id);
      const bad = uuidPathError("id", id);
      if (bad) return sendValidation(res, [bad]);
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return sendValidation(res, [input]);
      const name = input.string("name", { max: 200 });
      const timezone = input.timezone("timezone");
      const defaultCountry = input.country("default_country");
      const businessHours = input.businessHours("business_hours");
      if (input.errors.length > 0) return sendValidation(res, input.errors);
      const org = await store.updateOrganization(id, { name: name?.trim(), timezone, defaultCountry, businessHours });
      if (!org) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      cache.invalidate({ orgId: org.id });
      res.json(org);
    }),
  );

  app.post(
    "/admin/organizations/:id/api-keys",
    route(async (req, res) => {
      const id = String(req.params.id);
      const bad = uuidPathError("id", id);
      if (bad) return sendValidation(res, [bad]);
      const input = InputChecker.body(req.body ?? {});
      if (!(input instanceof InputChecker)) return sendValidation(res, [input]);
      const name = input.string("name", { max: 100 }) ?? null;
      const role: Role = input.oneOf("role", ROLES) ?? "member";
      const expiresAt = input.futureDateTime("expires_at", Date.now()) ?? null;
      if (input.errors.length > 0) return sendValidation(res, input.errors);
      if (!(await store.getOrganization(id))) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      const created = await store.createApiKey(id, { name, role, expiresAt });
      res.status(201).json({
        id: created.id,
        key: created.key,
        prefix: created.prefix,
        role: created.role,
        name: created.name,
        expires_at: created.expires_at,
        created_at: created.created_at,
      });
    }),
  );

  app.get(
    "/admin/organizations/:id/api-keys",
    route(async (req, res) => {
      const id = String(req.params.id);
      const bad = uuidPathError("id", id);
      if (bad) return sendValidation(res, [bad]);
      if (!(await store.getOrganization(id))) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      const items = await store.listApiKeys(id);
      res.json({ items, total: items.length });
    }),
  );

  app.delete(
    "/admin/api-keys/:key_id",
    route(async (req, res) => {
      const id = String(req.params.key_id);
      const bad = uuidPathError("key_id", id);
      if (bad) return sendValidation(res, [bad]);
      const orgId = await store.revokeApiKey(id);
      if (!orgId) return sendRefusal(res, gatewayErrors.API_KEY_NOT_FOUND());
      cache.invalidate({ keyId: id });
      res.status(204).end();
    }),
  );

  app.post(
    "/admin/organizations/:id/users",
    route(async (req, res) => {
      const id = String(req.params.id);
      const bad = uuidPathError("id", id);
      if (bad) return sendValidation(res, [bad]);
      const input = InputChecker.body(req.body);
      if (!(input instanceof InputChecker)) return sendValidation(res, [input]);
      const parsed = userInput(input);
      if (!parsed) return sendValidation(res, input.errors);
      if (!(await store.getOrganization(id))) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      try {
        const created = await users.createUser(id, parsed);
        res.status(201).json({
          ...publicUser(created.user),
          setup_url: setupUrl(deps.publicUrl(), created.setupToken),
          setup_expires_at: created.setupExpiresAt,
        });
      } catch (error) {
        if (error instanceof EmailTaken) return sendRefusal(res, gatewayErrors.EMAIL_TAKEN());
        throw error;
      }
    }),
  );

  app.get(
    "/admin/organizations/:id/users",
    route(async (req, res) => {
      const id = String(req.params.id);
      const bad = uuidPathError("id", id);
      if (bad) return sendValidation(res, [bad]);
      if (!(await store.getOrganization(id))) return sendRefusal(res, gatewayErrors.ORGANIZATION_NOT_FOUND());
      const items = (await users.listUsers(id)).map(publicUser);
      res.json({ items, total: items.length });
    }),
  );

  app.delete(
    "/admin/users/:user_id",
    route(async (req, res) => {
      const id = String(req.params.user_id);
      const bad = uuidPathError("user_id", id);
      if (bad) return sendValidation(res, [bad]);
      if (!(await users.deleteUser(id))) return sendRefusal(res, gatewayErrors.USER_NOT_FOUND());
      res.status(204).end();
    }),
  );

  jsonErrors(app, deps.logger);
  return app;
}
