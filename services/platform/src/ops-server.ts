import http from "node:http";
import type { AddressInfo } from "node:net";
import { drainableHttpServer } from "./http-server.js";
import type { Logger } from "./log.js";
import { registry } from "./metrics.js";

/**
 * Plain HTTP/1.1 listener of a standalone service, for Kubernetes probes and Prometheus (the
 * gRPC port speaks HTTP/2 only).
 */
export function startOpsServer(options: {
  host: string;
  port: number;
  logger: Logger;
  ready: () => Promise<boolean>;
}): Promise<{ port: number; drain(): void; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.url === "/metrics") {
        res.setHeader("content-type", registry.contentType);
        res.end(await registry.metrics());
      } else if (req.url === "/health/live") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ status: "ok" }));
      } else if (req.url === "/health/ready") {
        const ready = !drainable.draining && (await options.ready());
        res.statusCode = ready ? 200 : 503;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ status: ready ? "ok" : "unavailable" }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    })().catch((error: unknown) => {
      options.logger.error({ err: error }, "ops request failed");
      res.statusCode = 500;
      res.end();
    });
  });
  const drainable = drainableHttpServer(server);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        drain: () => drainable.drain(),
        close: () => drainable.close(2_000),
      });
    });
  });
}
