import http from "node:http";
import type { AddressInfo } from "node:net";

// A real OTLP/HTTP receiver (JSON) for the tracing tests: what the SDK exports, as a collector gets it.

export type Value = { stringValue?: string; intValue?: string | number };
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Value }[];
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: Value }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

export const SERVER = 2;
export const CLIENT = 3;
export const CONSUMER = 5;

export function attribute(span: OtlpSpan, key: string): string | undefined {
  const value = span.attributes?.find((item) => item.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : String(value.intValue));
}

/** An OTLP/HTTP receiver on a free loopback port that keeps every span it is sent. */
export function otlpReceiver() {
  const spans: (OtlpSpan & { service: string })[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportRequest;
        for (const resource of body.resourceSpans ?? []) {
          const service =
            resource.resource?.attributes?.find((item) => item.key === "service.name")?.value.stringValue ?? "";
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? []) spans.push({ ...span, service });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return {
    spans,
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
