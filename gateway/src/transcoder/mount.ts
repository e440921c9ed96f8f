import { createHash } from "node:crypto";
import { ConnectError } from "@connectrpc/connect";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import {
  asksForJsonAnswers,
  idempotencyMetadata,
  isReplayed,
  JSON_ANSWER_HEADER,
  jsonAnswerBytes,
  type Logger,
  type ObjectStore,
  type PeerRegistry,
} from "@voiceops/platform";
import {
  gatewayErrors,
  sendDetail,
  sendJson,
  sendJsonBytes,
  sendRefusal,
  sendValidation,
  rpcFailure,
  refusal,
} from "../errors/index.js";
import { writeField, writeMessage } from "./json-codec.js";
import {
  markReplay,
  REPLAYED_HEADER,
  requestKey,
  routeFingerprint,
  sendKeyRefusal,
  uploadFingerprint,
} from "./idempotency.js";
import { decodeRequest, entriesOf } from "./request.js";
import { resourceRouters } from "./resource-routers.js";
import type { Route } from "./routes.js";
import { principalHeaders, serviceNameOfType } from "./rpc-call.js";
import { isUploadRequest, receiveUpload, UploadRefused } from "./upload.js";

interface TranscoderDeps {
  peers: PeerRegistry;
  /** Where upload routes store their files. */
  objects: ObjectStore;
  internalToken: string;
  logger: Logger;
  timeoutMs?: number;
  /** Middleware run before each route's handler (authentication, body parsing). */
  before?: RequestHandler[];
}

/** "voiceops.crm.v1.CrmService" is served by the service named "crm". */
export function serviceNameOf(route: Route): string {
  return serviceNameOfType(route.service.typeName);
}

function sendRpcError(res: Response, route: Route, error: ConnectError, logger: Logger, req: Request): void {
  const failure = rpcFailure(error, (violations) => entriesOf(route, violations), [route.body ? "body" : "query"]);
  if (failure.log === "warn")
    logger.warn({ err: error, requestId: req.requestId, route: route.template }, "rpc call failed in transit");
  if (failure.log === "error")
    logger.error({ err: error, requestId: req.requestId, route: route.template }, "rpc call failed");
  if (typeof failure.detail === "string") sendDetail(res, failure.status, failure.detail);
  else sendValidation(res, failure.detail);
}

/** An Idempotency-Key and the fingerprint of the request it came with. */
interface KeyedRequest {
  key: string;
  fingerprint: string;
}

/**
 * Calls the route's RPC with a decoded message and answers with its result or error. Resolves
 * true when the call ran and succeeded (false for an error, or an answer replayed from a key).
 */
function callRoute(
  route: Route,
  message: unknown,
  req: Request,
  res: Response,
  next: NextFunction,
  deps: TranscoderDeps,
  keyed?: KeyedRequest,
): Promise<boolean> {
  const principal = req.principal;
  if (!principal) throw new Error("callRoute needs an authenticated request");
  const headers = principalHeaders(principal, req.requestId, deps.internalToken);
  if (keyed) Object.assign(headers, idempotencyMetadata(keyed.key, keyed.fingerprint));
  // The service may write the JSON the route answers with (its response_body, or all of it).
  if (route.successStatus !== 204 && asksForJsonAnswers())
    headers[JSON_ANSWER_HEADER] = route.responseBody?.name ?? "*";
  let transport;
  try {
    transport = deps.peers.transport(serviceNameOf(route));
  } catch (error) {
    next(error);
    return Promise.resolve(false);
  }
  // No AbortSignal: a client that goes away does not cancel the call. Nothing could stop the
  // service's work (over HTTP/1.1 a request cannot be withdrawn from a kept-alive connection,
  // and no handler watches its context's signal), so cancelling would only drop the pooled
  // connection, and an AbortController with its listener per request is not free.
  return transport
    .unary(route.method, undefined, deps.timeoutMs ?? 15_000, headers, message as never)
    .then(
      (response) => {
        // The same transcoding of the same kept message: same status, body and Location.
        const replayed = keyed !== undefined && isReplayed(response.header);
        if (replayed) res.setHeader(REPLAYED_HEADER, "true");
        if (route.successStatus === 204) {
          res.status(204).end();
          return !replayed;
        }
        const json = jsonAnswerBytes(response.message);
        if (json) {
          sendJsonBytes(res, route.successStatus, json);
          return !replayed;
        }
        const output = response.message as Record<string, unknown>;
        sendJson(
          res,
          route.successStatus,
          route.responseBody ? writeField(route.responseBody, output) : writeMessage(route.method.output, output),
        );
        return !replayed;
      },
      (error: unknown) => {
        const failure = ConnectError.from(error);
        if (keyed !== undefined) {
          markReplay(res, failure.metadata);
          if (sendKeyRefusal(res, failure)) return false;
        }
        sendRpcError(res, route, failure, deps.logger, req);
        return false;
      },
    )
    .catch((error: unknown) => {
      next(error);
      return false;
    });
}

/**
 * An upload route's request whose payload is a file: the file goes to the object store, the
 * other fields come from the form's parts (or the query string of a raw body), and the stored
 * object is removed again when the call does not succeed.
 */
function handleUpload(
  route: Route,
  req: Request,
  res: Response,
  next: NextFunction,
  deps: TranscoderDeps,
  idempotencyKey: string | undefined,
): void {
  const spec = route.upload;
  const principal = req.principal;
  if (!spec || !principal) return next(new Error("handleUpload needs an upload route and a principal"));
  // Under a key, the file and form are hashed as they stream in: the request's fingerprint.
  const digest = idempotencyKey === undefined ? undefined : createHash("sha256");
  receiveUpload(route, req, deps.objects, principal.orgId, digest).then(
    async (upload) => {
      const multipart = (req.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/form-data");
      const formRoute: Route = { ...route, body: undefined, queryFields: spec.formFields };
      const { message, errors } = decodeRequest(formRoute, {
        params: req.params as Record<string, string>,
        query: multipart ? upload.fields : (req.query as Record<string, unknown>),
        body: undefined,
        country: principal.country,
      });
      const key = upload.file?.objectKey;
      const discard = () => (key ? deps.objects.delete(key).catch(() => undefined) : Promise.resolve());
      if (errors.length > 0) {
        await discard();
        // Form parts are part of the body, as FastAPI locates them.
        return sendValidation(
          res,
          multipart
            ? errors.map((e) => (e.loc[0] === "query" ? { ...e, loc: ["body", ...e.loc.slice(1)] } : e))
            : errors,
        );
      }
      message[spec.field.localName] = upload.file;
      const keyed =
        idempotencyKey === undefined || !digest
          ? undefined
          : { key: idempotencyKey, fingerprint: uploadFingerprint(req, digest.digest("base64url")) };
      // A replayed answer names the file its first request stored: this one is not needed.
      if (!(await callRoute(route, message, req, res, next, deps, keyed))) await discard();
    },
    (error: unknown) => {
      if (!(error instanceof UploadRefused)) return next(error);
      if (error.status === 422) return sendValidation(res, [refusal(error.loc, error.detail)]);
      sendDetail(res, error.status, error.detail);
    },
  );
}

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

/** A route's handlers: naming, `deps.before` (authentication, body parsing) and the call. */
function routeHandlers(route: Route, deps: TranscoderDeps): Handler[] {
  const routeName = `${route.verb.toUpperCase()} ${route.template}`;
  // Named before authentication, so that even a 401 is logged by its template, not its path.
  const name = (req: Request, _res: Response, next: NextFunction) => {
    req.routeName = routeName;
    next();
  };
  return [
    name,
    ...(deps.before ?? []),
    (req: Request, res: Response, next: NextFunction) => serveRoute(route, req, res, next, deps),
  ];
}

/**
 * Serves every annotated RPC: HTTP in, RPC call, JSON out, through Express routers grouped by
 * resource (why Express matches, not a table of our own: docs/performance-stock-vs-fast.md).
 */
export function routeDispatcher(routes: Route[], deps: TranscoderDeps): RequestHandler {
  return resourceRouters(routes, (route) => routeHandlers(route, deps) as RequestHandler[]);
}

function serveRoute(route: Route, req: Request, res: Response, next: NextFunction, deps: TranscoderDeps): void {
  const principal = req.principal;
  if (!principal) return sendRefusal(res, gatewayErrors.API_KEY_MISSING());
  if (route.roles.length > 0 && !route.roles.includes(principal.role)) {
    return sendRefusal(res, gatewayErrors.ROLE_REQUIRED(route.roles));
  }
  const key = requestKey(route, req, res);
  if (key === false) return;
  if (isUploadRequest(route, req)) return handleUpload(route, req, res, next, deps, key);
  const { message, errors } = decodeRequest(route, {
    params: req.params as Record<string, string>,
    query: req.query as Record<string, unknown>,
    body: req.body as unknown,
    headers: req.headers,
    country: principal.country,
  });
  if (errors.length > 0) return sendValidation(res, errors);
  if (key === undefined) {
    void callRoute(route, message, req, res, next, deps);
    return;
  }
  routeFingerprint(req).then(
    (fingerprint) => callRoute(route, message, req, res, next, deps, { key, fingerprint }),
    (error: unknown) => next(error),
  );
}
