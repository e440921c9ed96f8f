import { ConfigError, envInt, envOptional, envString, idempotencyTtlSeconds } from "@voiceops/platform";
import type { SlowClientLimits } from "./http/slow-clients.js";
import { trustProxyFromEnv } from "./trust-proxy.js";

/** The gateway's listeners and limits, read from the environment once as a launcher starts. */
interface GatewayConfig {
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  rateLimitPerMinute: number;
  portalRateLimitPerMinute: number;
  trustProxy: boolean | number | string;
  /** PostgreSQL connections of the process. */
  poolSize: number;
  slowClients: SlowClientLimits;
  /** PUBLIC_URL: the address users reach the gateway at (set-up links; https makes the session cookie Secure). */
  publicUrl: string | undefined;
  /** How long an Idempotency-Key's answer is kept (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlSeconds: number;
}

function publicUrlFromEnv(env: Record<string, string | undefined>): string | undefined {
  const raw = envOptional("PUBLIC_URL", env);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("PUBLIC_URL", `must be an absolute http or https URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError("PUBLIC_URL", `must be an http or https URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

export function readGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  return {
    host: envString("HOST", "0.0.0.0", env),
    port: envInt("PORT", 8080, { min: 0, max: 65535 }, env),
    adminHost: envString("ADMIN_HOST", "127.0.0.1", env),
    adminPort: envInt("ADMIN_PORT", 8081, { min: 0, max: 65535 }, env),
    rateLimitPerMinute: envInt("RATE_LIMIT_PER_MINUTE", 600, { min: 1 }, env),
    portalRateLimitPerMinute: envInt("PORTAL_RATE_LIMIT_PER_MINUTE", 60, { min: 1 }, env),
    trustProxy: trustProxyFromEnv(env),
    poolSize: envInt("DB_POOL_SIZE", 10, { min: 1, max: 200 }, env),
    publicUrl: publicUrlFromEnv(env),
    idempotencyTtlSeconds: idempotencyTtlSeconds(env),
    slowClients: readSlowClientLimits(env),
  };
}

function readSlowClientLimits(env: Record<string, string | undefined>): SlowClientLimits {
  const headersSeconds = envInt("HEADERS_TIMEOUT_SECONDS", 20, { min: 1, max: 3600 }, env);
  const requestSeconds = envInt("REQUEST_TIMEOUT_SECONDS", 60, { min: 1, max: 86_400 }, env);
  // Node refuses a request timeout shorter than the headers': the head is part of the request.
  if (requestSeconds < headersSeconds) {
    throw new ConfigError(
      "REQUEST_TIMEOUT_SECONDS",
      `must be >= HEADERS_TIMEOUT_SECONDS (${headersSeconds}), got ${requestSeconds}`,
    );
  }
  return {
    headersTimeoutMs: headersSeconds * 1000,
    requestTimeoutMs: requestSeconds * 1000,
    maxConnectionsPerClient: envInt("MAX_CONNECTIONS_PER_CLIENT", 100, { min: 0 }, env),
  };
}
