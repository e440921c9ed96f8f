import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace";
import { ConfigError } from "../config.js";

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name (the specification's values),
 * read from the environment the launcher gives, which a test may pass instead of process.env.
 */
export function samplerFromEnv(env: Record<string, string | undefined>): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
  const ratio = () => {
    const raw = env.OTEL_TRACES_SAMPLER_ARG;
    if (raw === undefined || raw.trim() === "") return 1;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new ConfigError("OTEL_TRACES_SAMPLER_ARG", `must be a ratio from 0 to 1, got "${raw}"`);
    return value;
  };
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio());
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new ConfigError(
        "OTEL_TRACES_SAMPLER",
        `must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio, got "${name}"`,
      );
  }
}
