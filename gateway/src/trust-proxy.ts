import { ConfigError, envOptional } from "@voiceops/platform";

/**
 * TRUST_PROXY: which proxies in front of the gateway may say who the client is (through
 * X-Forwarded-For), as Express's "trust proxy" setting: a number of hops, or a comma-separated
 * list of addresses, CIDR ranges or the names loopback, linklocal, uniquelocal. Unset: the
 * client is the peer of the TCP connection. The per-address rate limit counts that client.
 */
export function trustProxyFromEnv(env: Record<string, string | undefined>): boolean | number | string {
  const raw = envOptional("TRUST_PROXY", env);
  if (raw === undefined || raw === "false") return false;
  if (raw === "true")
    throw new ConfigError(
      "TRUST_PROXY",
      "must name the proxies (a hop count or addresses), not trust every sender of X-Forwarded-For",
    );
  if (/^\d+$/.test(raw)) return Number(raw);
  if (!/^[\w.:/,\s-]+$/.test(raw))
    throw new ConfigError(
      "TRUST_PROXY",
      `must be a hop count or a comma-separated list of addresses or CIDR ranges, got "${raw}"`,
    );
  return raw;
}
