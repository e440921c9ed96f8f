import type { NextFunction, Request, Response } from "express";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { tracer } from "@voiceops/platform";
import { routeLabel } from "./request-context.js";

/**
 * The server span of each request (tracing on only): it continues the caller's `traceparent`,
 * names the span by the route template once it is known, and answers with the span's own
 * `traceparent`, so a caller can find the request's trace.
 */
export function traceRequests(scheme: "http" | "https" = "http") {
  return (req: Request, res: Response, next: NextFunction) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": req.method,
          "url.path": req.path,
          "url.scheme": scheme,
          "network.protocol.version": req.httpVersion,
          ...(req.headers["user-agent"] ? { "user_agent.original": req.headers["user-agent"] } : {}),
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    const outgoing: Record<string, string> = {};
    propagation.inject(active, outgoing);
    for (const [name, value] of Object.entries(outgoing)) res.setHeader(name, value);
    res.on("close", () => {
      const route = routeLabel(req);
      if (route !== "unmatched") {
        span.updateName(route);
        span.setAttribute("http.route", route.slice(route.indexOf(" ") + 1));
      }
      span.setAttribute("http.response.status_code", res.statusCode);
      if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(active, next);
  };
}
