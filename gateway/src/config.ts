import { envInt, envString } from "@voiceops/platform";
import { trustProxyFromEnv } from "./trust-proxy.js";

/** The gateway's listeners and limits, read from the environment once as a launcher starts. */
export interface GatewayConfig {
  host: string;
  port: number;
  adminHost: string;
  adminPort: number;
  rateLimitPerMinute: number;
  portalRateLimitPerMinute: number;
  trustProxy: boolean | number | string;
  /** PostgreSQL connections of the process. */
  poolSize: number;
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
  };
}
