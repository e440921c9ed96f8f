import http2 from "node:http2";
import { fromBinary, toBinary, type DescMessage, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor, type MethodImplSpec, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { codeFromHttpStatus, findTrailerError, parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import {
  canceled,
  MAX_MESSAGE_BYTES,
  metadataInto,
  methodPaths,
  readBody,
  requestMessage,
  runUnary,
  timedOut,
  tooLarge,
  unavailable,
  unaryByPath,
  incomingHeaders,
  webHeaders,
} from "./unary-call.js";

// Unary gRPC over HTTP/2 without Connect's general machinery (async iterables, AbortSignals
// and web Headers on every call, a ConnectError built on every close), which is most of the
// cost of a call between gateway and service. Both ends speak plain gRPC, so either side can
// still be any gRPC implementation: the server falls back to Connect's handler for everything
// else (Connect and gRPC-Web protocols, compression, streams), and the client to Connect's
// transport for streams.

const CONTENT_TYPES = new Set(["application/grpc", "application/grpc+proto"]);
/** HTTP/2 flow-control windows: large enough that no unary message waits for a WINDOW_UPDATE. */
export const HTTP2_WINDOW_BYTES = 8 * 1024 * 1024;

function frame(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = 0;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

/** The one message of a unary body; throws on compression or a malformed envelope. */
function unframe(body: Buffer): Uint8Array {
  if (body.length < 5) throw new ConnectError("protocol error: missing message envelope", Code.Internal);
  if ((body[0] ?? 0) & 1) throw new ConnectError("protocol error: compressed message without grpc-encoding", Code.Internal);
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new ConnectError("protocol error: a unary call carries exactly one message", Code.Internal);
  return body.subarray(5);
}

/**
 * Serves unary gRPC calls of the given implementations straight off the HTTP/2 stream, through
 * the same interceptors as Connect's handler. Returns false (leaving the request untouched) for
 * anything else, which the caller hands to Connect.
 */
export function grpcUnaryHandler(specs: Map<string, MethodImplSpec>, interceptors: Interceptor[]) {
  const byPath = unaryByPath(specs);
  return (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): boolean => {
    const headers = req.headers;
    if (req.method !== "POST") return false;
    const contentType = headers["content-type"];
    if (contentType === undefined || !CONTENT_TYPES.has(contentType)) return false;
    const encoding = headers["grpc-encoding"];
    if (encoding !== undefined && encoding !== "identity") return false;
    const spec = byPath.get(headers[":path"] ?? "");
    if (spec === undefined) return false;
    const stream = req.stream;
    stream.on("error", () => undefined);
    readBody(req, MAX_MESSAGE_BYTES + 5, (received) => {
      void (async () => {
        const timeout = parseTimeout(typeof headers["grpc-timeout"] === "string" ? headers["grpc-timeout"] : null, Number.MAX_SAFE_INTEGER);
        const { context, output, failure } = await runUnary(spec, interceptors, {
          protocolName: "grpc",
          url: headers[":path"] ?? "",
          header: incomingHeaders(headers),
          timeoutMs: timeout.timeoutMs,
          message: () => {
            if (!received) throw tooLarge();
            if (timeout.error) throw timeout.error;
            return unframe(received);
          },
        });
        if (stream.destroyed || stream.closed) return;
        const responseHeaders: http2.OutgoingHttpHeaders = { "content-type": "application/grpc+proto" };
        context.responseHeader.forEach((value, key) => {
          responseHeaders[key] = value;
        });
        const trailers: Record<string, string> = {};
        context.responseTrailer.forEach((value, key) => {
          trailers[key] = value;
        });
        if (failure || !output) {
          setTrailerStatus(new Headers(), failure ?? new ConnectError("no response", Code.Internal)).forEach((value, key) => {
            trailers[key] = value;
          });
        } else {
          trailers["grpc-status"] = "0";
        }
        res.writeHead(200, responseHeaders);
        res.addTrailers(trailers);
        if (output) res.end(frame(output));
        else res.end();
      })().catch(() => {
        // An answer that cannot be written (a header value Node refuses): end the exchange.
        res.destroy();
      });
    });
    return true;
  };
}

/**
 * A Transport for unary gRPC calls to one service over one reused HTTP/2 session (reconnected
 * when it closes, pinged while idle so a dead peer is noticed). Streams go to `fallback`.
 */
export function grpcUnaryTransport(baseUrl: string, options: { fallback: () => Transport; defaultTimeoutMs?: number; pingIntervalMs?: number }): Transport {
  const authority = new URL(baseUrl);
  let session: http2.ClientHttp2Session | undefined;
  const pathOf = methodPaths(authority);

  function open(): http2.ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2.connect(authority.origin, { settings: { initialWindowSize: HTTP2_WINDOW_BYTES } });
    session = s;
    const forget = () => {
      if (session === s) session = undefined;
    };
    s.on("error", forget);
    s.on("goaway", forget);
    s.on("close", () => {
      forget();
      clearInterval(ping);
    });
    s.once("connect", () => s.setLocalWindowSize(HTTP2_WINDOW_BYTES));
    // A peer that vanished without closing the connection is found by an unanswered ping.
    const ping = setInterval(() => {
      if (s.closed || s.destroyed) return;
      const timer = setTimeout(() => s.destroy(), 15_000);
      timer.unref();
      try {
        s.ping((error) => {
          clearTimeout(timer);
          if (error) s.destroy();
        });
      } catch {
        clearTimeout(timer);
      }
    }, options.pingIntervalMs ?? 30_000);
    ping.unref();
    s.unref();
    return s;
  }

  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: ConstructorParameters<typeof Headers>[0] | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(canceled());
        const path = pathOf(method);
        const timeout = timeoutMs ?? options.defaultTimeoutMs ?? 10_000;
        const headers: http2.OutgoingHttpHeaders = {
          ":method": "POST",
          ":path": path,
          "content-type": "application/grpc+proto",
          te: "trailers",
          "grpc-timeout": `${Math.max(1, Math.ceil(timeout))}m`,
        };
        metadataInto(header, headers);
        let body: Buffer;
        try {
          body = frame(toBinary(method.input, requestMessage(method.input, input)));
        } catch (error) {
          return reject(ConnectError.from(error, Code.Internal));
        }
        let stream: http2.ClientHttp2Stream;
        try {
          stream = open().request(headers);
        } catch (error) {
          session = undefined;
          return reject(unavailable(error));
        }
        let settled = false;
        let responseHeaders: http2.IncomingHttpHeaders | undefined;
        let trailers: http2.IncomingHttpHeaders | undefined;
        const chunks: Buffer[] = [];
        let size = 0;
        const fail = (error: ConnectError) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          reject(error);
          if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
        };
        const timer = setTimeout(() => fail(timedOut()), timeout);
        const onAbort = () => fail(canceled());
        signal?.addEventListener("abort", onAbort);
        stream.on("response", (h) => {
          responseHeaders = h;
        });
        stream.on("trailers", (t) => {
          trailers = t;
        });
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_MESSAGE_BYTES + 5) fail(tooLarge());
          else chunks.push(chunk);
        });
        stream.on("error", (error) => fail(unavailable(error)));
        stream.on("close", () => {
          if (settled) return;
          const status = Number(responseHeaders?.[":status"] ?? 0);
          if (status === 0) return fail(new ConnectError(`stream closed without a response (code ${stream.rstCode})`, Code.Unavailable));
          if (status !== 200) return fail(new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status)));
          const final = trailers ?? responseHeaders;
          const grpcStatus = final?.["grpc-status"];
          if (grpcStatus === undefined) return fail(new ConnectError("protocol error: missing grpc-status", Code.Internal));
          if (grpcStatus !== "0") {
            return fail(findTrailerError(webHeaders(final ?? {})) ?? new ConnectError("protocol error: bad grpc-status", Code.Internal));
          }
          let message;
          try {
            message = fromBinary(method.output, unframe(Buffer.concat(chunks, size)));
          } catch (error) {
            return fail(ConnectError.from(error, Code.Internal));
          }
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          const heads = responseHeaders ?? {};
          const tails = trailers ?? {};
          resolve({
            stream: false,
            service: method.parent,
            method,
            message,
            get header() {
              return webHeaders(heads);
            },
            get trailer() {
              return webHeaders(tails);
            },
          } as UnaryResponse<I, O>);
        });
        stream.end(body);
      });
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return options.fallback().stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}
