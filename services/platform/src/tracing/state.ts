import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from "@opentelemetry/api";

// Whether this process exports traces (see sdk.ts). Every instrumented part asks once, as it is
// built, so with tracing off nothing is wrapped and requests do no tracing work at all.
let on = false;

export function tracingOn(): boolean {
  return on;
}

export function setTracingOn(value: boolean): void {
  on = value;
}

/** The platform's tracer (the SDK's once it is started, the API's no-op one before). */
export function tracer(): Tracer {
  return trace.getTracer("voiceops");
}

const headersGetter: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

const headersSetter: TextMapSetter<Headers> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

/** The trace context a call's metadata carries (traceparent), or the root context. */
export function contextFromHeaders(headers: Headers): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headersGetter);
}

/** Writes a context into a call's metadata (traceparent, tracestate). */
export function injectIntoHeaders(ctx: Context, headers: Headers): void {
  propagation.inject(ctx, headers, headersSetter);
}

/** The context a W3C traceparent names, or the root context for none. */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** The active context as a W3C traceparent; empty with tracing off or no span active. */
export function activeTraceparent(ctx: Context = context.active()): string {
  if (!on) return "";
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ?? "";
}
