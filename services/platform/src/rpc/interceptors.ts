import { timingSafeEqual } from "node:crypto";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { isDatabaseUnavailable } from "../db/database.js";
import type { Logger } from "../log.js";
import { rpcRequests } from "../metrics.js";
import { methodRules } from "../proto-options.js";
import { applyDefaults } from "../defaults.js";
import { validateMessage } from "../validation/validate.js";
import { invalidArgument } from "../validation/violations.js";
import { COMPONENT_AUTH_FAILURES, MetadataKeys, orgContextFromHeaders, orgContextKey } from "./org-context.js";
import { markAnswered } from "./errors.js";

const HEALTH_SERVICE = "voiceops.health.v1.HealthService";
/** Services any caller may use without the internal token: health, and the schema (reflection). */
const OPEN_SERVICES = new Set([
  HEALTH_SERVICE,
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
]);

/** Services for components only (internal token) that act before an organization is known. */
const UNSCOPED_SERVICES = new Set(["voiceops.crm.v1.PortalService"]);

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The error a service answers with: its own deliberate errors as they are; a database that
 * cannot be reached as UNAVAILABLE (the caller may retry); anything else as INTERNAL, whose
 * details (SQL, addresses, stacks) stay in the log. Every answer is marked as this service's.
 */
function answerOf(error: unknown, method: string, requestId: string | null, logger: Logger): ConnectError {
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error, method, requestId }, "database unavailable");
    return markAnswered(new ConnectError("database unavailable", Code.Unavailable));
  }
  const connectError = ConnectError.from(error);
  if (connectError.code === Code.Internal || connectError.code === Code.Unknown) {
    logger.error({ err: error, method, requestId }, "rpc failed");
    return markAnswered(new ConnectError("internal error", Code.Internal));
  }
  return markAnswered(connectError);
}

/** Counts and times every RPC, and logs the ones that fail unexpectedly. */
export function observe(service: string, logger: Logger): Interceptor {
  return (next) => async (req) => {
    const stop = rpcRequests.startTimer({ service, method: req.method.name });
    try {
      const res = await next(req);
      stop({ code: "ok" });
      return res;
    } catch (error) {
      const answer = answerOf(error, req.method.name, req.header.get(MetadataKeys.requestId), logger);
      stop({ code: Code[answer.code] });
      throw answer;
    }
  };
}

/**
 * Authenticates calls between components with the shared internal token, and puts the org
 * context from the metadata into the handler context. Only the health RPC needs neither; the
 * unscoped services need no organization.
 */
export function authenticate(internalToken: string): Interceptor {
  return (next) => async (req) => {
    if (OPEN_SERVICES.has(req.service.typeName)) return next(req);
    const token = req.header.get(MetadataKeys.internalToken) ?? "";
    if (!sameSecret(token, internalToken))
      throw new ConnectError(COMPONENT_AUTH_FAILURES.internalToken, Code.Unauthenticated);
    if (UNSCOPED_SERVICES.has(req.service.typeName)) return next(req);
    const org = orgContextFromHeaders(req.header);
    if (!org) throw new ConnectError(COMPONENT_AUTH_FAILURES.organization, Code.Unauthenticated);
    req.contextValues.set(orgContextKey, org);
    return next(req);
  };
}

/** Enforces the roles an RPC declares in its MethodRules. */
export function authorize(): Interceptor {
  return (next) => async (req) => {
    const roles = methodRules(req.method)?.roles ?? [];
    if (roles.length > 0) {
      const org = req.contextValues.get(orgContextKey);
      if (!org || !roles.includes(org.role)) {
        throw new ConnectError(`this operation requires the ${roles.join(" or ")} role`, Code.PermissionDenied);
      }
    }
    return next(req);
  };
}

/** Applies declared defaults and checks declared field rules, for every caller. */
export function validate(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const message = req.message as Record<string, unknown>;
      applyDefaults(req.method.input, message);
      const country = req.contextValues.get(orgContextKey)?.country ?? "US";
      const violations = validateMessage(req.method.input, message, { country });
      if (violations.length > 0) throw invalidArgument(violations);
    }
    return next(req);
  };
}
