import type http from "node:http";
import { Code, ConnectError, type Interceptor, type MethodImplSpec } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes, parseTimeout, trailerMux } from "@connectrpc/connect/protocol-connect";
import { toBinary } from "@bufbuild/protobuf";
import { MAX_MESSAGE_BYTES } from "../rpc/limits.js";
import { JSON_ANSWER_HEADER, JSON_ANSWER_TYPE, jsonAnswerWriter } from "./json-answer.js";
import { readBody, runUnary, tooLarge, unaryByPath, webHeaders } from "./unary-call.js";

// Unary calls in the Connect protocol over HTTP/1.1 (binary messages), served straight off
// Node's HTTP/1.1 server: what the gateway and the services send each other. Node's HTTP/1.1
// costs each side of a call a fraction of its HTTP/2 (gateway/bench/rpc-clients.ts), and the
// protocol is Connect's own, so any Connect client can call it. Everything else (JSON, GET,
// compression, streams, gRPC-Web) is left to Connect's handler. A call that asks for its answer
// as REST JSON (json-answer.ts) gets it so, unless that JSON is past the message limit.

const PROTO = "application/proto";

/**
 * Serves a unary Connect call of the given implementations through the same interceptors as
 * Connect's handler. Returns false (leaving the request untouched) for anything else, which the
 * caller hands to Connect.
 */
export function connectUnaryHandler(specs: Map<string, MethodImplSpec>, interceptors: Interceptor[]) {
  const byPath = unaryByPath(specs);
  return (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const headers = req.headers;
    if (req.method !== "POST" || headers["content-type"] !== PROTO) return false;
    const encoding = headers["content-encoding"];
    if (encoding !== undefined && encoding !== "identity") return false;
    const spec = byPath.get(req.url ?? "");
    if (spec === undefined) return false;
    req.on("error", () => undefined);
    readBody(req, MAX_MESSAGE_BYTES, (received) => {
      void (async () => {
        const timeout = parseTimeout(
          typeof headers["connect-timeout-ms"] === "string" ? headers["connect-timeout-ms"] : null,
          Number.MAX_SAFE_INTEGER,
        );
        const asked = headers[JSON_ANSWER_HEADER];
        const writer = typeof asked === "string" ? jsonAnswerWriter(spec.method.output, asked) : undefined;
        let answeredJson = false;
        const { context, output, failure } = await runUnary(spec, interceptors, {
          protocolName: "connect",
          url: req.url ?? "",
          header: webHeaders(headers),
          timeoutMs: timeout.timeoutMs,
          message: () => {
            if (!received) throw tooLarge();
            if (timeout.error) throw timeout.error;
            return received;
          },
          encode:
            writer &&
            ((message) => {
              const json = Buffer.from(JSON.stringify(writer(message)));
              if (json.length > MAX_MESSAGE_BYTES) return toBinary(spec.method.output, message);
              answeredJson = true;
              return json;
            }),
        });
        if (res.destroyed) return;
        // As Connect answers a unary call: metadata in headers, trailers as "trailer-" headers,
        // an error as JSON with its metadata among the headers.
        const error = failure ?? (output ? undefined : new ConnectError("no response", Code.Internal));
        const answer = trailerMux(context.responseHeader, context.responseTrailer);
        error?.metadata.forEach((value, key) => {
          answer.set(key, value);
        });
        const body = error ? errorToJsonBytes(error, {}) : (output as Uint8Array);
        const out: Record<string, string | number> = {
          "content-type": error ? "application/json" : answeredJson ? JSON_ANSWER_TYPE : PROTO,
          "content-length": body.length,
        };
        answer.forEach((value, key) => {
          if (key !== "content-type" && key !== "content-length") out[key] = value;
        });
        res.writeHead(error ? codeToHttpStatus(error.code) : 200, out);
        res.end(body);
      })().catch(() => {
        // An answer that cannot be written (a header value Node refuses): end the exchange.
        res.destroy();
      });
    });
    return true;
  };
}
