import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { HealthService } from "@voiceops/proto/voiceops/health/v1/health_service_pb";
import { dualProtocolServer } from "../http-server.js";
import { CLIENT_IDLE_MS, collectImplementations, connectUnaryHandler, fastPath } from "../fast-path/index.js";
import type { Logger } from "../log.js";
import { authenticate, authorize, observe, validate } from "./interceptors.js";
import { idempotency, type IdempotencyOptions } from "../idempotency/interceptor.js";
import { MAX_MESSAGE_BYTES } from "./limits.js";
import { registerReflection } from "./reflection.js";
import { traceServer } from "../tracing/rpc.js";
import { tracingOn } from "../tracing/state.js";

interface RpcServerOptions {
  /** Service name, e.g. "crm"; labels metrics and logs. */
  name: string;
  host: string;
  /** 0 picks a free port (embedded mode and tests). */
  port: number;
  internalToken: string;
  logger: Logger;
  routes: (router: ConnectRouter) => void;
  /** Dependency states reported by the health RPC. */
  health: () => Promise<Record<string, string>>;
  /** Where calls carrying an idempotency key keep it (the service's database). */
  idempotency?: IdempotencyOptions;
  /** Serve unary binary Connect over HTTP/1.1 on the fast path (FAST_PATH's `rpc`, the default); false leaves every call to Connect. */
  directUnary?: boolean;
}

export interface RpcServer {
  /** Base URL for clients, e.g. "http://127.0.0.1:50061". */
  url: string;
  port: number;
  /** Marks the server as going away (its ops readiness answers 503); it keeps serving. */
  drain(): void;
  /** Stops taking new calls, lets the running ones finish (until the deadline), then closes. */
  close(deadlineMs?: number): Promise<void>;
}

/**
 * The interceptors every call to a service runs through, over the network or in process; with
 * `idempotency`, calls carrying an idempotency key claim it once they are known to be valid.
 */
export function serverInterceptors(
  options: Pick<RpcServerOptions, "name" | "logger" | "internalToken" | "idempotency">,
): Interceptor[] {
  const interceptors = [
    observe(options.name, options.logger),
    authenticate(options.internalToken),
    authorize(),
    validate(),
  ];
  if (tracingOn()) interceptors.unshift(traceServer());
  if (options.idempotency) interceptors.push(idempotency(options.idempotency));
  return interceptors;
}

/** The service's own routes plus the health RPC and server reflection (for grpcurl, buf curl...). */
export function serviceRoutes(
  options: Pick<RpcServerOptions, "name" | "routes" | "health">,
): (router: ConnectRouter) => void {
  return (router) => {
    options.routes(router);
    router.service(HealthService, {
      async check() {
        const dependencies = await options.health();
        const ok = Object.values(dependencies).every((state) => state === "ok");
        return { status: ok ? "ok" : "degraded", service: options.name, dependencies };
      },
    });
    registerReflection(router);
  };
}

/** HTTP/2 flow-control windows: large enough that no unary message waits for a WINDOW_UPDATE. */
const HTTP2_WINDOW_BYTES = 8 * 1024 * 1024;

/**
 * Serves Connect, gRPC and gRPC-Web on one port, over HTTP/2 and HTTP/1.1, with the platform
 * interceptors. With FAST_PATH's `rpc`, unary calls in binary Connect over HTTP/1.1 (what the
 * gateway and the services send each other) take the fast path; Connect's handler serves the
 * rest.
 */
export function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const routes = serviceRoutes(options);
  const interceptors = serverInterceptors(options);
  const handler = connectNodeAdapter({
    // Calls travel over loopback or the cluster network; gzip costs more CPU than it saves.
    acceptCompression: [],
    readMaxBytes: MAX_MESSAGE_BYTES,
    writeMaxBytes: MAX_MESSAGE_BYTES,
    interceptors,
    routes,
  });
  const direct = options.directUnary ?? fastPath("rpc");
  const connectUnary = direct ? connectUnaryHandler(collectImplementations(routes), interceptors) : () => false;
  const h2 = http2.createServer({ settings: { initialWindowSize: HTTP2_WINDOW_BYTES } }, handler);
  h2.on("session", (session) => {
    session.once("connect", () => session.setLocalWindowSize(HTTP2_WINDOW_BYTES));
  });
  // Kept-alive connections outlive the clients' idle timeout, so a client never sends on one
  // the server is closing.
  const server = http.createServer((req, res) => {
    if (!connectUnary(req, res)) handler(req, res);
  });
  server.keepAliveTimeout = CLIENT_IDLE_MS * 2;
  server.headersTimeout = CLIENT_IDLE_MS * 2 + 5_000;
  const drainable = dualProtocolServer(server, h2);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
      options.logger.info({ port }, "rpc server listening");
      resolve({
        url: `http://${host}:${port}`,
        port,
        drain: () => drainable.drain(),
        // In-flight calls finish; HTTP/2 clients get a GOAWAY, HTTP/1.1 ones Connection: close.
        close: (deadlineMs) => drainable.close(deadlineMs),
      });
    });
  });
}
