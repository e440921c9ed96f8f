import type { DescMethod } from "@bufbuild/protobuf";
import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { Code, ConnectError, type Interceptor, type Transport } from "@connectrpc/connect";
import { contextFromHeaders, injectIntoHeaders, tracer } from "./state.js";

function rpcAttributes(method: DescMethod) {
  return { "rpc.system": "connect_rpc", "rpc.service": method.parent.typeName, "rpc.method": method.name };
}

/** Ends an RPC span with the call's status (Connect's codes are gRPC's). */
function endRpcSpan(span: Span, error: unknown): void {
  if (error === undefined) {
    span.setAttribute("rpc.grpc.status_code", 0);
  } else {
    const code = ConnectError.from(error).code;
    span.setAttribute("rpc.grpc.status_code", code);
    span.setAttribute("rpc.connect_rpc.error_code", Code[code]);
    span.setStatus({ code: SpanStatusCode.ERROR, message: Code[code] });
  }
  span.end();
}

/**
 * The server span of every call to a service, over the network (Connect, gRPC, the fast path)
 * or in process, continuing the caller's trace from the call's traceparent.
 */
export function traceServer(): Interceptor {
  return (next) => async (req) => {
    const parent = contextFromHeaders(req.header);
    const span = tracer().startSpan(
      `${req.method.parent.typeName}/${req.method.name}`,
      { kind: SpanKind.SERVER, attributes: rpcAttributes(req.method) },
      parent,
    );
    try {
      const res = await context.with(trace.setSpan(parent, span), () => next(req));
      endRpcSpan(span, undefined);
      return res;
    } catch (error) {
      endRpcSpan(span, error);
      throw error;
    }
  };
}

/**
 * A transport whose calls are client spans, with the span's context in the call's metadata
 * (traceparent), for every transport a component calls another through.
 */
export function tracedTransport(transport: Transport, service: string): Transport {
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const span = tracer().startSpan(
        `${method.parent.typeName}/${method.name}`,
        { kind: SpanKind.CLIENT, attributes: { ...rpcAttributes(method), "server.address": service } },
        context.active(),
      );
      const ctx = trace.setSpan(context.active(), span);
      const headers = new Headers(header);
      injectIntoHeaders(ctx, headers);
      try {
        const res = await context.with(ctx, () =>
          transport.unary(method, signal, timeoutMs, headers, input, contextValues),
        );
        endRpcSpan(span, undefined);
        return res;
      } catch (error) {
        endRpcSpan(span, error);
        throw error;
      }
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      const headers = new Headers(header);
      injectIntoHeaders(context.active(), headers);
      return transport.stream(method, signal, timeoutMs, headers, input, contextValues);
    },
  };
}
