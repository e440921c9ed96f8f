import net from "node:net";
import {
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJsonBytes, trailerDemux } from "@connectrpc/connect/protocol-connect";
import { type Answer, type Fields, field, HEADER_VALUE, ResponseParser } from "./http1-response.js";
import { JSON_ANSWER_HEADER, JSON_ANSWER_TYPE, JsonAnswer } from "./json-answer.js";
import {
  canceled,
  HEADER_NAME,
  metadataInto,
  methodPaths,
  requestMessage,
  timedOut,
  unavailable,
} from "./unary-call.js";

// The client side of connect-http1-server.ts: unary Connect calls over a pool of kept-alive
// HTTP/1.1 connections, written and parsed here. Node's HTTP client and its agent cost a call
// about twice as much CPU, Connect's own HTTP/1.1 transport about ten times
// (gateway/bench/rpc-clients.ts). The calls made in one turn of the event loop go out
// pipelined on one connection in one write (the answers come back in order): one write and
// one wake-up of the service for several calls, which on a machine where those are dear saves
// 5-12% of the CPU of a request through the gateway. Calls of later turns never join a
// connection whose answers are awaited, so a slow call holds up only the calls sent with it.

/** Connections kept to one service at most; calls beyond wait for one to come free. */
const MAX_CONNECTIONS = 128;
/** Calls of one turn of the event loop written together on one connection at most. */
const PIPELINE_DEPTH = 16;
/** Bytes of requests written together at most; a larger request starts a write of its own. */
const PIPELINE_BYTES = 32 * 1024;
/** An idle connection is closed after this long (well before the server's keep-alive timeout). */
export const CLIENT_IDLE_MS = 30_000;

interface Call {
  readonly settled: boolean;
  settle(error: Error | undefined, answer?: Answer): void;
}

/** One kept-alive connection and the parser of the answers to the calls it carries, in order. */
class Connection {
  readonly socket: net.Socket;
  /** The calls sent on this connection whose answers have not arrived, in the order sent. */
  readonly calls: Call[] = [];
  /** Requests to write at the end of this turn of the event loop, in one write. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  readonly #answers = new ResponseParser();
  #gone = false;

  constructor(
    host: string,
    port: number,
    private readonly onIdle: (connection: Connection) => void,
    private readonly onGone: (connection: Connection) => void,
  ) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.unref();
    this.socket.on("data", (data: Buffer) => this.#receive(data));
    this.socket.on("timeout", () => this.socket.destroy());
    this.socket.on("error", (error) => this.#end(error));
    this.socket.on("close", () => this.#end(new Error("connection closed before the answer")));
  }

  /** Whether a request of this many bytes may join this turn's write. */
  takes(bytes: number): boolean {
    return (
      this.#pending.length > 0 && this.calls.length < PIPELINE_DEPTH && this.#pendingBytes + bytes <= PIPELINE_BYTES
    );
  }

  send(request: Buffer, call: Call): void {
    this.calls.push(call);
    this.socket.setTimeout(0);
    if (this.#pending.length === 0) setImmediate(() => this.#flush());
    this.#pending.push(request);
    this.#pendingBytes += request.length;
  }

  #flush(): void {
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (this.#gone || pending.length === 0) return;
    this.socket.write(pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending));
  }

  /** A call given up (deadline, abort): the connection goes with it once no live call is left on it. */
  abandon(call: Call): void {
    if (this.calls.includes(call) && this.calls.every((sent) => sent.settled)) this.socket.destroy();
  }

  #end(error: Error): void {
    this.socket.destroy();
    this.#pending = [];
    this.#pendingBytes = 0;
    const calls = this.calls.splice(0);
    this.#leave();
    for (const call of calls) call.settle(error);
  }

  /** Leaves the pool, once. */
  #leave(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.onGone(this);
  }

  #receive(data: Buffer): void {
    if (this.calls.length === 0) return this.#end(new Error("data on an idle connection"));
    try {
      this.#answers.push(data);
      while (this.calls.length > 0) {
        const answer = this.#answers.next();
        if (!answer) return;
        // Nothing may follow the answer to the last call sent (the call fails with the connection).
        if (this.calls.length === 1 && this.#answers.buffered > 0)
          throw new Error("protocol error: bytes after the answer");
        const call = this.calls.shift() as Call;
        // The answer first, then the calls sent after it, which the server will not answer.
        call.settle(undefined, answer);
        if (answer.close) return this.#end(new Error("connection closed before the answer"));
      }
      this.socket.setTimeout(CLIENT_IDLE_MS);
      this.onIdle(this);
    } catch (error) {
      this.#end(error as Error);
    }
  }
}

/**
 * A successful call's response. Its header and trailer (undici Headers, costly to fill) are made
 * when first read: the gateway never reads them.
 */
function unaryResponse(method: DescMethodUnary, fields: Fields, message: unknown) {
  let demuxed: [Headers, Headers] | undefined;
  const demux = () => (demuxed ??= trailerDemux(new Headers(fields)));
  return {
    stream: false,
    service: method.parent,
    method,
    get header() {
      return demux()[0];
    },
    get trailer() {
      return demux()[1];
    },
    message,
  };
}

/**
 * A Transport for unary calls to one service in the Connect protocol over HTTP/1.1: a pool of
 * up to MAX_CONNECTIONS kept-alive connections, each carrying the calls of one turn of the
 * event loop at a time (up to PIPELINE_DEPTH of them, PIPELINE_BYTES in all). Streams go to
 * `fallback`.
 */
export function connectUnaryTransport(
  baseUrl: string,
  options: { fallback: () => Transport; defaultTimeoutMs?: number },
): Transport {
  const url = new URL(baseUrl);
  if (url.protocol !== "http:")
    throw new Error(`the Connect HTTP/1.1 transport speaks plain http, not ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 80);
  const idle: Connection[] = [];
  const open = new Set<Connection>();
  const waiting: ((connection: Connection) => void)[] = [];
  const pathOf = methodPaths(url);

  const release = (connection: Connection) => {
    const next = waiting.shift();
    if (next) next(connection);
    else idle.push(connection);
  };
  const forget = (connection: Connection) => {
    open.delete(connection);
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
    // A waiting call takes the place of the connection that went away.
    const next = waiting.shift();
    if (next) next(connect());
  };
  const connect = () => {
    const connection = new Connection(host, port, release, forget);
    open.add(connection);
    return connection;
  };
  /** The connection taking this turn's calls, while it has room for more. */
  let filling: Connection | undefined;
  /** A connection for a call: this turn's, the most recently used idle one, a new one, or the next one freed. */
  const acquire = (bytes: number): Connection | Promise<Connection> => {
    if (filling?.takes(bytes)) return filling;
    const connection = idle.pop();
    if (connection) return connection;
    if (open.size < MAX_CONNECTIONS) return connect();
    return new Promise((resolve) => waiting.push(resolve));
  };

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: ConstructorParameters<typeof Headers>[0] | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      if (signal?.aborted) throw canceled();
      const path = pathOf(method);
      const timeout = Math.max(1, Math.ceil(timeoutMs ?? options.defaultTimeoutMs ?? 10_000));
      let message: Uint8Array;
      try {
        message = toBinary(method.input, requestMessage(method.input, input));
      } catch (error) {
        throw ConnectError.from(error, Code.Internal);
      }
      const metadata: Record<string, string | number | string[] | undefined> = {};
      metadataInto(header, metadata);
      let head = `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/proto\r\nconnect-protocol-version: 1\r\nconnect-timeout-ms: ${timeout}\r\ncontent-length: ${message.length}\r\n`;
      for (const key in metadata) {
        const value = metadata[key];
        if (value === undefined) continue;
        const text = String(value);
        if (!HEADER_NAME.test(key) || !HEADER_VALUE.test(text))
          throw new ConnectError(`metadata ${JSON.stringify(key)} cannot travel in an HTTP/1.1 header`, Code.Internal);
        head += `${key}: ${text}\r\n`;
      }
      head += "\r\n";
      const request = Buffer.allocUnsafe(Buffer.byteLength(head, "latin1") + message.length);
      const headBytes = request.write(head, 0, "latin1");
      request.set(message, headBytes);

      const answer = await new Promise<Answer>((resolve, reject) => {
        let connection: Connection | undefined;
        let settled = false;
        const call: Call = {
          get settled() {
            return settled;
          },
          settle(error, result) {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            if (error) reject(error instanceof ConnectError ? error : unavailable(error));
            else resolve(result as Answer);
          },
        };
        // A call cut short (deadline, abort) takes its connection with it once no call sent
        // with it still waits (HTTP/1.1 cannot cancel one request and keep the connection);
        // until then its answer, when it comes, is read and dropped.
        const cut = (error: ConnectError) => {
          call.settle(error);
          connection?.abandon(call);
        };
        const timer = setTimeout(() => cut(timedOut()), timeout);
        const onAbort = () => cut(canceled());
        signal?.addEventListener("abort", onAbort);
        const start = (free: Connection) => {
          if (settled) return release(free);
          connection = free;
          filling = free;
          free.send(request, call);
        };
        const free = acquire(request.length);
        if (free instanceof Connection) start(free);
        else void free.then(start);
      });

      const contentType = field(answer.fields, "content-type");
      if (answer.status !== 200) {
        const headers = new Headers(answer.fields);
        const fallback = new ConnectError(`HTTP ${answer.status}`, codeFromHttpStatus(answer.status), headers);
        if (!(contentType ?? "").startsWith("application/json")) throw fallback;
        throw errorFromJsonBytes(answer.body, headers, fallback);
      }
      // An answer the call asked for as REST JSON (json-answer.ts) stays the bytes it came as.
      if (contentType === JSON_ANSWER_TYPE && metadata[JSON_ANSWER_HEADER] !== undefined)
        return unaryResponse(method, answer.fields, new JsonAnswer(answer.body)) as UnaryResponse<I, O>;
      if (contentType !== "application/proto")
        throw new ConnectError(`unexpected content type ${contentType}`, Code.Internal);
      let output;
      try {
        output = fromBinary(method.output, answer.body);
      } catch (error) {
        throw ConnectError.from(error, Code.Internal);
      }
      return unaryResponse(method, answer.fields, output) as UnaryResponse<I, O>;
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return options.fallback().stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}
