import type http from "node:http";
import net from "node:net";
import type http2 from "node:http2";
import type { Duplex } from "node:stream";

/** How long in-flight requests may take to finish once a server closes; then they are cut. */
const IN_FLIGHT_DEADLINE_MS = 15_000;

/** The stages of a graceful stop that every listener of a process goes through. */
interface Drainable {
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
  const reason =
    status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Per connection: requests received and not yet answered, and whether an answer said close. */
interface Pipelined {
  [IN_FLIGHT]?: number;
  [CLOSING]?: boolean;
}
const IN_FLIGHT = Symbol("requests in flight");
const CLOSING = Symbol("closing after an answer");

/**
 * Graceful handling of an HTTP/1.1 server: JSON answers to unparsable requests, and a drain
 * in which answers carry `Connection: close`, so clients on keep-alive connections reconnect
 * (elsewhere) instead of sending more requests to a server that is going away.
 *
 * A client may pipeline (send requests before the answers to earlier ones: the calls between
 * components do). Node runs every request it has read but drops the answers after one that
 * says close, so a call would run and its caller be told the connection closed. So the answer
 * that says close is the one to the last request read on its connection, and a request read
 * after that answer was decided is not run: the connection closes after that answer, and the
 * caller knows the request never ran.
 */
export function drainableHttpServer(server: http.Server): Drainable {
  let draining = false;
  server.on("clientError", answerClientError);
  const handlers = server.listeners("request") as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const connection = req.socket as net.Socket & Pipelined;
    // Left unanswered: the connection closes after the answer before it.
    if (connection[CLOSING]) return;
    connection[IN_FLIGHT] = (connection[IN_FLIGHT] ?? 0) + 1;
    res.once("close", () => {
      connection[IN_FLIGHT] = (connection[IN_FLIGHT] ?? 1) - 1;
    });
    if (draining) closeAfterLastAnswer(connection, res);
    for (const handler of handlers) handler.call(server, req, res);
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

/** Makes the answer say close when no later request waits on its connection. */
function closeAfterLastAnswer(connection: net.Socket & Pipelined, res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (connection[IN_FLIGHT] === 1) {
      connection[CLOSING] = true;
      this.setHeader("Connection", "close");
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/** The first bytes of every HTTP/2 connection (RFC 9113, 3.4); no HTTP/1.1 method starts so. */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n");
/** How long a new connection may take to send its first bytes. */
const FIRST_BYTES_MS = 60_000;

/**
 * HTTP/1.1 and unencrypted HTTP/2 on one port (Node's HTTP/2 server serves HTTP/1.1 only over
 * TLS): `h1` listens, and each connection that opens with the HTTP/2 preface goes to `h2`
 * instead. Graceful handling of both: on drain, HTTP/1.1 answers carry `Connection: close`; on
 * close, every HTTP/2 session gets a GOAWAY (its in-flight streams finish, clients open new
 * connections), idle HTTP/1.1 connections are closed, and both are cut at the deadline.
 */
export function dualProtocolServer(h1: http.Server, h2: http2.Http2Server): Drainable {
  const [serveHttp1] = h1.listeners("connection") as ((socket: net.Socket) => void)[];
  if (!serveHttp1) throw new Error("the HTTP/1.1 server has no connection listener");
  h1.removeAllListeners("connection");
  h1.on("connection", (socket: net.Socket) => {
    let first = Buffer.alloc(0);
    const fail = () => socket.destroy();
    socket.setTimeout(FIRST_BYTES_MS);
    socket.on("timeout", fail);
    socket.on("error", fail);
    // A connection that ends before its first bytes tell the protocol serves nothing.
    socket.on("end", fail);
    const sniff = () => {
      for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null)
        first = Buffer.concat([first, chunk]);
      const known = Math.min(first.length, HTTP2_PREFACE.length);
      const http2 = first.subarray(0, known).equals(HTTP2_PREFACE.subarray(0, known));
      // "P" may begin POST or PUT as well as the preface: wait for enough bytes to tell.
      if (http2 && known < 4) return;
      socket.off("readable", sniff);
      socket.off("error", fail);
      socket.off("timeout", fail);
      socket.off("end", fail);
      socket.setTimeout(0);
      socket.unshift(first);
      if (http2) h2.emit("connection", socket);
      else serveHttp1.call(h1, socket);
    };
    socket.on("readable", sniff);
  });
  const http1 = drainableHttpServer(h1);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  let closing: Promise<void> | undefined;
  return {
    get draining() {
      return http1.draining;
    },
    drain() {
      http1.drain();
    },
    close(deadlineMs = IN_FLIGHT_DEADLINE_MS) {
      closing ??= new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, deadlineMs);
        deadline.unref();
        for (const session of sessions) session.close();
        // Resolves once every connection, of either protocol, has closed.
        void http1.close(deadlineMs).then(() => {
          clearTimeout(deadline);
          resolve();
        });
      });
      return closing;
    },
  };
}
