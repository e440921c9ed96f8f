import { type Attributes, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { activeTraceparent, contextFromTraceparent, tracer, tracingOn } from "./state.js";

/** What an outgoing request's span records of its answer. */
interface OutboundOutcome {
  status: number | null;
  error: string | null;
}

/**
 * Runs an outgoing HTTP request as a CLIENT span, child of `parent` (the traceparent of the work
 * it belongs to), and hands the request the span's own traceparent to send along. With tracing
 * off it only runs the request (with no traceparent).
 */
export async function tracedRequest<T extends OutboundOutcome>(
  name: string,
  parent: string | null | undefined,
  attributes: Attributes,
  send: (traceparent: string) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return send("");
  const parentContext = contextFromTraceparent(parent ?? undefined);
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parentContext);
  try {
    const outcome = await send(activeTraceparent(trace.setSpan(parentContext, span)));
    if (outcome.status !== null) span.setAttribute("http.response.status_code", outcome.status);
    if (outcome.error !== null || outcome.status === null || outcome.status >= 400)
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? `HTTP ${outcome.status}` });
    return outcome;
  } finally {
    span.end();
  }
}
