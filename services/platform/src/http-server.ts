import type http from "node:http";
import net from "node:net";
import type http2 from "node:http2";
import type { Duplex } from "node:stream";

/** How long in-flight requests may take to finish once a server closes; then they are cut. */
export const IN_FLIGHT_DEADLINE_MS = 15_000;

/** The stages of a graceful stop that every listener of a process goes through. */
export interface Drainable {
  /** Whether drain() was called: readiness answers 503 from then on. */
  readonly draining: boolean;
  /** Keeps serving, but tells clients to go elsewhere (readiness 503, no keep-alive). */
  drain(): void;
  /** Stops accepting, closes idle connections, lets in-flight requests finish within the deadline. */
  close(deadlineMs?: number): Promise<void>;
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request header fields too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request timeout"],
};

/**
 * Node answers a request it cannot parse (bad request line, header too large, timeout) by
 * itself, as plain text. These answers are JSON like every other one.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || (error.code === "ECONNRESET" && !socket.readable)) {
    socket.destroy();
    return;
  }
  const [status, detail] = CLIENT_ERRORS[error.code ?? ""] ?? [400, "Bad request"];
  const body = JSON.stringify({ detail });
  const reason = status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request";
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Graceful handling of an HTTP/1.1 server: JSON answers to unparsable requests, and a drain
 * in which every response carries `Connection: close`, so clients on keep-alive connections
 * reconnect (elsewhere) instead of sending more requests to a server that is going away.
 */
export function drainableHttpServer(server: http.Server): Drainable {
  let draining = false;
  server.on("clientError", answerClientError);
  server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.setHeader("Connection", "close");
  });
  let closing: Promise<void> | undefined;
  return {
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
    close(deadlineMs = IN_FLIGHT_DEADLINE_MS) {
      draining = true;
      closing ??= new Promise<void>((resolve) => {
        // Stop listening without http.Server#close's immediate sweep of idle connections: that
        // sweep also destroys a connection accepted a moment ago whose request has not arrived
        // yet, resetting a request the client has sent. Connections in use close themselves
        // after their response (Connection: close); the ones left idle are closed a moment later.
        net.Server.prototype.close.call(server, () => {
          clearInterval(sweep);
          clearTimeout(deadline);
          resolve();
        });
        const sweep = setInterval(() => server.closeIdleConnections(), 1_000);
        const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
        sweep.unref();
        deadline.unref();
      });
      return closing;
    },
  };
}

/**
 * Graceful handling of an HTTP/2 (gRPC) server: on close, every session gets a GOAWAY, which
 * lets its in-flight streams finish and makes clients open new connections for new calls.
 */
export function drainableHttp2Server(server: http2.Http2Server): Drainable {
  let draining = false;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  let closing: Promise<void> | undefined;
  return {
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
    close(deadlineMs = IN_FLIGHT_DEADLINE_MS) {
      draining = true;
      closing ??= new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, deadlineMs);
        deadline.unref();
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        for (const session of sessions) session.close();
      });
      return closing;
    },
  };
}
