import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { HealthService } from "@voiceops/proto/voiceops/health/v1/health_service_pb";
import { drainableHttp2Server } from "../http-server.js";
import type { Logger } from "../log.js";
import { grpcUnaryHandler, HTTP2_WINDOW_BYTES } from "./grpc-unary.js";
import { authenticate, authorize, observe, validate } from "./interceptors.js";
import { collectImplementations } from "./local.js";
import { registerReflection } from "./reflection.js";

export interface RpcServerOptions {
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
  /** Serve unary gRPC on the direct path (default); false leaves every call to Connect (benchmarks). */
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

/** The interceptors every call to a service runs through, over the network or in process. */
export function serverInterceptors(options: Pick<RpcServerOptions, "name" | "logger" | "internalToken">): Interceptor[] {
  return [observe(options.name, options.logger), authenticate(options.internalToken), authorize(), validate()];
}

/** The service's own routes plus the health RPC and server reflection (for grpcurl, buf curl...). */
export function serviceRoutes(options: Pick<RpcServerOptions, "name" | "routes" | "health">): (router: ConnectRouter) => void {
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

/**
 * Serves Connect, gRPC and gRPC-Web on one HTTP/2 port, with the platform interceptors. Unary
 * gRPC calls (what the gateway and the services send) take a direct path; Connect's handler
 * serves the rest.
 */
export function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const routes = serviceRoutes(options);
  const interceptors = serverInterceptors(options);
  const handler = connectNodeAdapter({
    // Calls travel over loopback or the cluster network; gzip costs more CPU than it saves.
    acceptCompression: [],
    interceptors,
    routes,
  });
  const unary = options.directUnary === false ? () => false : grpcUnaryHandler(collectImplementations(routes), interceptors);
  const server = http2.createServer({ settings: { initialWindowSize: HTTP2_WINDOW_BYTES } }, (req, res) => {
    if (!unary(req, res)) handler(req, res);
  });
  server.on("session", (session) => {
    session.once("connect", () => session.setLocalWindowSize(HTTP2_WINDOW_BYTES));
  });
  const drainable = drainableHttp2Server(server);
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
        // GOAWAY lets in-flight streams finish while refusing new ones.
        close: (deadlineMs) => drainable.close(deadlineMs),
      });
    });
  });
}
