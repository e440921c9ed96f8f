import { ConfigError } from "../config.js";
import { samplerFromEnv } from "./sampler.js";
import { setTracingOn } from "./state.js";

/** A started OpenTelemetry SDK; shutdown() flushes the spans not yet exported. */
interface Tracing {
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces: an OTLP endpoint for all signals or for traces. */
function tracingWanted(env: Record<string, string | undefined>): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/** Where spans are sent: the traces endpoint as given, or /v1/traces under the general one. */
function tracesUrl(env: Record<string, string | undefined>): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const url = traces || `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim().replace(/\/+$/, "")}/v1/traces`;
  try {
    new URL(url);
  } catch {
    throw new ConfigError(
      traces ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT",
      `must be a URL, got "${url}"`,
    );
  }
  return url;
}

function protocolOf(env: Record<string, string | undefined>): "http/protobuf" | "http/json" {
  const raw = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf").trim();
  if (raw === "http/protobuf" || raw === "http/json") return raw;
  throw new ConfigError("OTEL_EXPORTER_OTLP_PROTOCOL", `must be http/protobuf or http/json, got "${raw}"`);
}

function scheduleDelayMs(env: Record<string, string | undefined>): number | undefined {
  const raw = env.OTEL_BSP_SCHEDULE_DELAY?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError("OTEL_BSP_SCHEDULE_DELAY", `must be milliseconds, got "${raw}"`);
  return value;
}

/**
 * Starts OpenTelemetry when the environment names an OTLP endpoint, exporting spans over
 * OTLP/HTTP (protobuf, or JSON) as `OTEL_SERVICE_NAME`, by default the component's registry name.
 * Unset, it loads nothing and returns undefined: the API stays the no-op one. The SDK is
 * loaded on demand so a process without tracing never evaluates it.
 */
export async function startTracing(
  env: Record<string, string | undefined>,
  component: string,
): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const url = tracesUrl(env);
  const protocol = protocolOf(env);
  const sampler = samplerFromEnv(env);
  const delay = scheduleDelayMs(env);
  const [{ NodeSDK }, { BatchSpanProcessor }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/sdk-trace"),
  ]);
  const exporter =
    protocol === "http/json"
      ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter({ url })
      : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter({ url });
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || component,
    sampler,
    spanProcessors: [
      new BatchSpanProcessor({ exporter, ...(delay === undefined ? {} : { scheduledDelayMillis: delay }) }),
    ],
  });
  sdk.start();
  setTracingOn(true);
  return {
    async shutdown() {
      setTracingOn(false);
      await sdk.shutdown();
    },
  };
}
