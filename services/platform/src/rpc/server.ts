import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { HealthService } from "@voiceops/proto/voiceops/health/v1/health_service_pb";
import type { Logger } from "../log.js";
import { authenticate, authorize, observe, validate } from "./interceptors.js";

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
}

export interface RpcServer {
  /** Base URL for clients, e.g. "http://127.0.0.1:50061". */
  url: string;
  port: number;
  /** Stops taking new calls, lets the running ones finish, then closes. */
  close(): Promise<void>;
}

/** Serves Connect, gRPC and gRPC-Web on one HTTP/2 port, with the platform interceptors. */
export function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const handler = connectNodeAdapter({
    // Calls travel over loopback or the cluster network; gzip costs more CPU than it saves.
    acceptCompression: [],
    interceptors: [observe(options.name, options.logger), authenticate(options.internalToken), authorize(), validate()],
    routes(router) {
      options.routes(router);
      router.service(HealthService, {
        async check() {
          const dependencies = await options.health();
          const ok = Object.values(dependencies).every((state) => state === "ok");
          return { status: ok ? "ok" : "degraded", service: options.name, dependencies };
        },
      });
    },
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
      options.logger.info({ port }, "rpc server listening");
      resolve({
        url: `http://${host}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // GOAWAY lets in-flight streams finish while refusing new ones.
            for (const session of sessions) session.close();
          }),
      });
    });
  });
}
