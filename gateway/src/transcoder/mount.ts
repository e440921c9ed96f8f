import { Code, ConnectError } from "@connectrpc/connect";
import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import { orgHeaders, violationsOf, type Logger, type PeerRegistry } from "@voiceops/platform";
import { sendDetail, sendValidation } from "../http/errors.js";
import { HTTP_STATUS_OF_CODE } from "./http-status.js";
import { writeField, writeMessage } from "./json-codec.js";
import { decodeRequest, entriesOf } from "./request.js";
import type { Route } from "./routes.js";

export interface TranscoderDeps {
  peers: PeerRegistry;
  internalToken: string;
  logger: Logger;
  timeoutMs?: number;
  /** Middleware run before each route's handler (authentication, body parsing). */
  before?: RequestHandler[];
}

/** "voiceops.crm.v1.CrmService" is served by the service named "crm". */
export function serviceNameOf(route: Route): string {
  return route.service.typeName.split(".")[1] ?? "";
}

function sendRpcError(res: Response, route: Route, error: ConnectError, logger: Logger, req: Request): void {
  if (error.code === Code.InvalidArgument) {
    const violations = violationsOf(error);
    if (violations.length > 0) return sendValidation(res, entriesOf(route, violations));
    return sendValidation(res, [{ loc: [route.body ? "body" : "query"], msg: error.rawMessage, type: "value_error" }]);
  }
  const status = HTTP_STATUS_OF_CODE[error.code] ?? 500;
  if (status >= 500) {
    logger.error({ err: error, requestId: req.requestId, route: route.template }, "rpc call failed");
    const detail =
      error.code === Code.Unavailable ? "Service temporarily unavailable" : error.code === Code.DeadlineExceeded ? "Upstream timeout" : "Internal server error";
    return sendDetail(res, status, detail);
  }
  sendDetail(res, status, error.rawMessage);
}

/** Mounts one Express route per annotated RPC: HTTP in, RPC call, JSON out. */
export function mountRoutes(router: Router, routes: Route[], deps: TranscoderDeps): void {
  for (const route of routes) {
    const serviceName = serviceNameOf(route);
    router[route.verb](route.expressPath, ...(deps.before ?? []), (req: Request, res: Response, next: NextFunction) => {
      req.routeName = `${route.verb.toUpperCase()} ${route.template}`;
      const principal = req.principal;
      if (!principal) return sendDetail(res, 401, "Missing API key: send it in the X-API-Key header");
      if (route.roles.length > 0 && !route.roles.includes(principal.role)) {
        return sendDetail(res, 403, `This operation requires the ${route.roles.join(" or ")} role`);
      }
      const { message, errors } = decodeRequest(route, {
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: req.body as unknown,
        country: principal.country,
      });
      if (errors.length > 0) return sendValidation(res, errors);
      const headers = orgHeaders(
        { orgId: principal.orgId, timezone: principal.timezone, country: principal.country, role: principal.role, requestId: req.requestId },
        deps.internalToken,
      );
      let transport;
      try {
        transport = deps.peers.transport(serviceName);
      } catch (error) {
        return next(error);
      }
      transport
        .unary(route.method, undefined, deps.timeoutMs ?? 15_000, headers, message as never)
        .then(
          (response) => {
            if (route.successStatus === 204) {
              res.status(204).end();
              return;
            }
            const output = response.message as Record<string, unknown>;
            const body = route.responseBody ? writeField(route.responseBody, output) : writeMessage(route.method.output, output);
            res.status(route.successStatus).json(body);
          },
          (error: unknown) => sendRpcError(res, route, ConnectError.from(error), deps.logger, req),
        )
        .catch(next);
    });
  }
}
