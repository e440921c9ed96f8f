import http from "node:http";
import type net from "node:net";
import type { Express } from "express";
import { appServerClasses, fastPath } from "@voiceops/platform";

/** How long a client may take over a request, and how many connections one address may hold. */
export interface SlowClientLimits {
  /** Time to send the whole request head; then 408 (or a close). */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included; then 408 (or a close). */
  requestTimeoutMs: number;
  /** Open connections per client address; one more is closed at once. 0: no limit. */
  maxConnectionsPerClient: number;
}

/**
 * The public HTTP/1.1 server with Node's own request timeouts. Node checks them every
 * connectionsCheckingInterval (30 s by default, longer than a short timeout): checking a few
 * times per timeout lets each fire close to when it is due. With FAST_PATH's `express` its
 * requests and responses are born with the app's prototypes.
 */
export function createPublicServer(app: Express, limits: SlowClientLimits): http.Server {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(shortest / 4))),
      ...(fastPath("express") ? appServerClasses(app) : {}),
    },
    app,
  );
  if (limits.maxConnectionsPerClient > 0) limitConnectionsPerClient(server, limits.maxConnectionsPerClient);
  return server;
}

/**
 * Closes a connection beyond `max` open ones from its address before it is read. The address is
 * the peer's: behind a proxy every client shares the proxy's.
 */
function limitConnectionsPerClient(server: net.Server, max: number): void {
  const open = new Map<string, number>();
  server.prependListener("connection", (socket: net.Socket) => {
    const address = socket.remoteAddress ?? "";
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
