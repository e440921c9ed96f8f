import { ConfigError, envInt, envString } from "@voiceops/platform";
import type { SlowClientLimits } from "./http/slow-clients.js";
import { trustProxyFromEnv } from "./trust-proxy.js";

/** The gateway's listeners and limits, read from the environment once as a launcher starts. */
export interface GatewayConfig {
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  rateLimitPerMinute: number;
  trustProxy: boolean | number | string;
  /** PostgreSQL connections of the process. */
  poolSize: number;
  slowClients: SlowClientLimits;
}

export function readGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  return {
    host: envString("HOST", "0.0.0.0", env),
    port: envInt("PORT", 8080, { min: 0, max: 65535 }, env),
    adminHost: envString("ADMIN_HOST", "127.0.0.1", env),
    adminPort: envInt("ADMIN_PORT", 8081, { min: 0, max: 65535 }, env),
    rateLimitPerMinute: envInt("RATE_LIMIT_PER_MINUTE", 600, { min: 1 }, env),
    trustProxy: trustProxyFromEnv(env),
    poolSize: envInt("DB_POOL_SIZE", 10, { min: 1, max: 200 }, env),
    slowClients: readSlowClientLimits(env),
  };
}

function readSlowClientLimits(env: Record<string, string | undefined>): SlowClientLimits {
  const headersSeconds = envInt("HEADERS_TIMEOUT_SECONDS", 20, { min: 1, max: 3600 }, env);
  const requestSeconds = envInt("REQUEST_TIMEOUT_SECONDS", 60, { min: 1, max: 86_400 }, env);
  // Node refuses a request timeout shorter than the headers': the head is part of the request.
  if (requestSeconds < headersSeconds) {
    throw new ConfigError("REQUEST_TIMEOUT_SECONDS", `must be >= HEADERS_TIMEOUT_SECONDS (${headersSeconds}), got ${requestSeconds}`);
  }
  return {
    headersTimeoutMs: headersSeconds * 1000,
    requestTimeoutMs: requestSeconds * 1000,
    maxConnectionsPerClient: envInt("MAX_CONNECTIONS_PER_CLIENT", 100, { min: 0 }, env),
  };
}
